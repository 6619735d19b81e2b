import type { AdminActor } from '../../http/request-context.js';
import { CHAIN_NAMES, type ChainName } from './chain-catalog.js';
import { type ChainSettingsInput, configureChain } from './chain-configure.js';
import { health, runChain, runDue } from './chain-runs.js';
import { lagLimit } from './chain-view.js';
import { type ChainsContext, type ChainsDeps, chainOf, createChainsContext, view } from './chains-context.js';
import { chainRow, chainRows } from './chains-repository.js';

export type { ChainSettingsInput } from './chain-configure.js';
export type { SourceFactory } from './chains-context.js';
export { lagLimit };

/** `GET /admin/chains`: every chain with its settings in force, cursor, head, lag and errors. */
async function listChains(ctx: ChainsContext) {
  const rows = new Map((await chainRows(ctx.database.db)).map((r) => [r.chain, r]));
  return CHAIN_NAMES.map((chain) => view(ctx, chain, rows.get(chain)));
}

/** One chain's view; NOT_FOUND for a name that is not a chain. */
async function getChain(ctx: ChainsContext, name: string) {
  const chain = chainOf(name);
  return view(ctx, chain, await chainRow(ctx.database.db, chain));
}

/**
 * The built-in chain watchers (docs/decisions.md sections 25 and 34): operators' settings (admin API, CLI, console, environment),
 * the view `GET /admin/chains` answers, and the scheduler that runs each enabled chain's loop at its
 * poll interval, one process at a time per chain (a PostgreSQL advisory lock). The methods:
 * `list`, `get` (chains-service.ts), `configure` (chain-configure.ts), `runDue`, `health` and
 * `runOnce` (chain-runs.ts).
 */
export function createChainsService(deps: ChainsDeps) {
  const ctx = createChainsContext(deps);
  return {
    list: () => listChains(ctx),
    get: (name: string) => getChain(ctx, name),
    configure: (name: string, input: ChainSettingsInput, actor: AdminActor) =>
      configureChain(ctx, name, input, actor),
    runDue: (onError?: (chain: ChainName, err: unknown) => void): Promise<void> => runDue(ctx, onError),
    health: () => health(ctx),
    /** One loop of one chain now (tests, `npm run admin -- chains run <chain>`). */
    runOnce: (name: string) => runChain(ctx, chainOf(name)),
  };
}

export type ChainsService = ReturnType<typeof createChainsService>;

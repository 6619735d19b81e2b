import type { ChainEnvSettings } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets.js';
import { writeAudit } from '../audit/index.js';
import { CHAIN_NAMES, type ChainName, chainInfo } from './chain-catalog.js';
import { type EffectiveChainSettings, effectiveSettings, redactUrl } from './chain-settings.js';
import type { ChainSource } from './chain-source.js';
import { runWatcherLoop, type WatcherEvents, type WatcherLedger } from './chain-watcher.js';
import {
  type ChainWatcherRow,
  chainRow,
  chainRows,
  recordOutcome,
  saveChainSettings,
} from './chains-repository.js';

/** `PUT /admin/chains/{chain}` body: omitted fields keep their values; null clears one. */
export interface ChainSettingsInput {
  url?: string | null | undefined;
  api_key?: string | null | undefined;
  confirmations?: number | null | undefined;
  token_contract?: string | null | undefined;
  poll_seconds?: number | null | undefined;
  start_height?: number | undefined;
  chain_id?: number | null | undefined;
  enabled?: boolean | undefined;
}

/** Builds the source of a chain from its settings in force (chain-sources.ts). */
export type SourceFactory = (
  settings: EffectiveChainSettings,
) => ChainSource & { chainId?(): Promise<number> };

/**
 * The built-in chain watchers (issue 20): operators' settings (admin API, CLI, console, environment),
 * the view `GET /admin/chains` answers, and the scheduler that runs each enabled chain's loop at its
 * poll interval, one process at a time per chain (a PostgreSQL advisory lock).
 */
export function createChainsService(deps: {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  env: Readonly<Record<ChainName, ChainEnvSettings>>;
  ledger: WatcherLedger;
  sources: SourceFactory;
  events?: WatcherEvents;
}) {
  const { database, clock, secretBox } = deps;
  const db = database.db;

  function settingsOf(chain: ChainName, row: ChainWatcherRow | undefined): EffectiveChainSettings {
    const info = chainInfo(chain);
    if (!info) throw new AppError('NOT_FOUND');
    return effectiveSettings(
      info,
      row
        ? {
            url: row.url,
            apiKey: row.apiKeySealed ? secretBox.open(row.apiKeySealed) : null,
            confirmations: row.confirmations,
            tokenContract: row.tokenContract,
            pollSeconds: row.pollSeconds,
            chainId: row.chainId,
            enabled: row.enabled,
          }
        : null,
      deps.env[chain],
    );
  }

  function view(chain: ChainName, row: ChainWatcherRow | undefined) {
    const s = settingsOf(chain, row);
    const head = row?.headHeight != null ? { height: row.headHeight, hash: row.headHash } : null;
    const cursor = row?.cursorHeight != null ? { height: row.cursorHeight, hash: row.cursorHash } : null;
    return {
      chain,
      network: s.info.network,
      enabled: s.enabled,
      url: redactUrl(s.url),
      api_key_set: s.apiKey !== null,
      head,
      cursor,
      lag_blocks: head && cursor ? Math.max(0, head.height - cursor.height) : null,
      poll_seconds: s.pollSeconds,
      confirmations: s.confirmations,
      token_contract: s.info.token ? s.tokenContract : null,
      chain_id: s.chainId,
      last_error:
        row?.lastErrorAt && row.lastError
          ? { at: row.lastErrorAt.toISOString(), message: row.lastError }
          : null,
      last_success_at: row?.lastSuccessAt?.toISOString() ?? null,
      recent_transfers: row?.recent ?? [],
    };
  }

  function chainOf(name: string): ChainName {
    if (!chainInfo(name)) throw new AppError('NOT_FOUND');
    return name as ChainName;
  }

  const lastRun = new Map<ChainName, number>();
  const running = new Set<ChainName>();

  async function runChain(chain: ChainName): Promise<void> {
    const settings = settingsOf(chain, await chainRow(db, chain));
    if (!settings.enabled || !settings.url) return;
    const outcome = await database.withLock(`chain-watcher:${chain}`, async () => {
      try {
        return await runWatcherLoop({
          database,
          clock,
          settings,
          source: deps.sources(settings),
          ledger: deps.ledger,
          ...(deps.events ? { events: deps.events } : {}),
        });
      } catch (err) {
        const message = (err as Error).message;
        await recordOutcome(db, chain, { ok: false, message }, new Date(clock.now())).catch(() => undefined);
        deps.events?.onError?.(chain, message);
        throw err;
      }
    });
    if (outcome.skipped) return;
  }

  return {
    /** `GET /admin/chains`: every chain with its settings in force, cursor, head, lag and errors. */
    async list() {
      const rows = new Map((await chainRows(db)).map((r) => [r.chain, r]));
      return CHAIN_NAMES.map((chain) => view(chain, rows.get(chain)));
    },

    /** One chain's view; NOT_FOUND for a name that is not a chain. */
    async get(name: string) {
      const chain = chainOf(name);
      return view(chain, await chainRow(db, chain));
    },

    /**
     * `PUT /admin/chains/{chain}`: merges the settings (issue 20: omitted fields keep their values).
     * When the watcher will run, the node is asked first (outside any transaction): its head for the
     * default start (head minus confirmations), and on EVM chains `eth_chainId`, refused with
     * VALIDATION_ERROR naming `chain_id` on a mismatch; a node that does not answer is refused naming
     * `url`. The cursor is set on first configuration or when `start_height` is given. Audited
     * without the API key.
     */
    async configure(name: string, input: ChainSettingsInput, actor: AdminActor) {
      const chain = chainOf(name);
      const info = chainInfo(chain);
      if (!info) throw new AppError('NOT_FOUND');
      if (input.token_contract && !info.token)
        throw invalidField('token_contract', `${chain} watches only its coin`);
      if (input.chain_id != null && info.family !== 'evm')
        throw invalidField('chain_id', 'applies to EVM chains (ethereum, bsc) only');
      const before = await chainRow(db, chain);
      const patch = {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.api_key !== undefined
          ? { apiKeySealed: input.api_key === null ? null : secretBox.seal(input.api_key) }
          : {}),
        ...(input.confirmations !== undefined ? { confirmations: input.confirmations } : {}),
        ...(input.token_contract !== undefined ? { tokenContract: input.token_contract } : {}),
        ...(input.poll_seconds !== undefined ? { pollSeconds: input.poll_seconds } : {}),
        ...(input.chain_id !== undefined ? { chainId: input.chain_id } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      };
      const merged = settingsOf(chain, { ...(before ?? emptyRow(chain)), ...patch } as ChainWatcherRow);
      let cursor: { height: number } | null = null;
      if (merged.enabled && merged.url) {
        let source: ReturnType<SourceFactory>;
        try {
          source = deps.sources(merged);
        } catch (err) {
          throw invalidField('url', (err as Error).message);
        }
        if (source.chainId && merged.chainId !== null) {
          const answered = await source.chainId().catch((err: Error) => {
            throw invalidField('url', `the node did not answer eth_chainId: ${err.message}`);
          });
          if (answered !== merged.chainId)
            throw invalidField(
              'chain_id',
              `the node serves chain ${answered}, not ${merged.chainId}${input.chain_id == null ? ` (${chain}); give chain_id for a test network` : ''}`,
            );
        }
        if (input.start_height !== undefined) cursor = { height: input.start_height - 1 };
        else if (before?.cursorHeight == null) {
          const head = await source.head().catch((err: Error) => {
            throw invalidField('url', `the node did not answer: ${err.message}`);
          });
          cursor = { height: Math.max(-1, head.height - merged.confirmations - 1) };
        }
      } else if (input.start_height !== undefined) cursor = { height: input.start_height - 1 };
      await db.transaction(async (tx) => {
        await saveChainSettings(tx, chain, patch, cursor, new Date(clock.now()));
        const { apiKeySealed: _hidden, ...shown } = patch;
        await writeAudit(tx, actor, {
          action: 'chain.configure',
          targetType: 'chain',
          targetId: chain,
          after: {
            ...shown,
            ...(input.api_key !== undefined ? { api_key: input.api_key === null ? null : 'set' } : {}),
            ...(cursor ? { start_height: cursor.height + 1 } : {}),
          },
        });
      });
      return view(chain, await chainRow(db, chain));
    },

    /**
     * Runs the loop of every enabled chain whose poll interval has passed (called every second by
     * the jobs). A chain's loop never overlaps itself in a process, and runs in one process at a
     * time across all of them. Errors are recorded on the chain and reported to `onError`.
     */
    async runDue(onError?: (chain: ChainName, err: unknown) => void): Promise<void> {
      const rows = new Map((await chainRows(db)).map((r) => [r.chain, r]));
      const now = clock.now();
      for (const chain of CHAIN_NAMES) {
        const s = settingsOf(chain, rows.get(chain));
        if (!s.enabled || running.has(chain)) continue;
        if (now - (lastRun.get(chain) ?? 0) < s.pollSeconds * 1000) continue;
        lastRun.set(chain, now);
        running.add(chain);
        // Not awaited: a slow provider of one chain never delays the others' loops.
        void runChain(chain)
          .catch((err) => onError?.(chain, err))
          .finally(() => running.delete(chain));
      }
    },

    /**
     * Per enabled chain, 1 when operators should look (issue 20 "an alert when a watcher lags more
     * than its limit or its provider fails"): lag above `lagLimit` blocks, the last error newer than
     * the last success, or no success for 10 poll intervals; else 0. Also the lag in blocks.
     */
    async health(): Promise<{ alert: Record<string, number>; lag: Record<string, number> }> {
      const rows = new Map((await chainRows(db)).map((r) => [r.chain, r]));
      const alert: Record<string, number> = {};
      const lag: Record<string, number> = {};
      const now = clock.now();
      for (const chain of CHAIN_NAMES) {
        const row = rows.get(chain);
        const s = settingsOf(chain, row);
        if (!s.enabled) continue;
        const v = view(chain, row);
        lag[chain] = v.lag_blocks ?? 0;
        const failing =
          row?.lastErrorAt != null && (row.lastSuccessAt == null || row.lastErrorAt > row.lastSuccessAt);
        const silent = now - (row?.lastSuccessAt?.getTime() ?? 0) > 10 * s.pollSeconds * 1000;
        alert[chain] = failing || silent || (v.lag_blocks ?? 0) > lagLimit(s) ? 1 : 0;
      }
      return { alert, lag };
    },

    /** One loop of one chain now (tests, `npm run admin -- chains run <chain>`). */
    runOnce: (name: string) => runChain(chainOf(name)),
  };
}

/** Blocks a watcher may lag before the alert: three times its confirmations plus ten. */
export function lagLimit(s: EffectiveChainSettings): number {
  return 3 * s.confirmations + 10;
}

function emptyRow(chain: string): ChainWatcherRow {
  return {
    chain,
    url: null,
    apiKeySealed: null,
    confirmations: null,
    tokenContract: null,
    pollSeconds: null,
    chainId: null,
    enabled: null,
    cursorHeight: null,
    cursorHash: null,
    headHeight: null,
    headHash: null,
    lastError: null,
    lastErrorAt: null,
    lastSuccessAt: null,
    recent: null,
    updatedAt: new Date(0),
  };
}

export type ChainsService = ReturnType<typeof createChainsService>;

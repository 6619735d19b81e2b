import type { ChainEnvSettings } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { redactText } from '../../lib/redact.js';
import type { SecretBox } from '../../lib/secrets.js';
import { type ChainName, chainInfo } from './chain-catalog.js';
import { type EffectiveChainSettings, effectiveSettings } from './chain-settings.js';
import type { ChainSource, NetworkFacts } from './chain-source.js';
import { chainView, sourceKey } from './chain-view.js';
import type { WatcherEvents, WatcherLedger } from './chain-watcher.js';
import type { ChainWatcherRow } from './chains-repository.js';

/** Builds the source of a chain from its settings in force (chain-sources.ts). */
export type SourceFactory = (settings: EffectiveChainSettings) => ChainSource;

/** What the chains service is built from (composition.ts). */
export interface ChainsDeps {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  env: Readonly<Record<ChainName, ChainEnvSettings>>;
  ledger: WatcherLedger;
  sources: SourceFactory;
  events?: WatcherEvents;
  /** CHAIN_DROP_AFTER_SECONDS (default 3600). */
  dropAfterSeconds?: number;
}

/** A built source, its settings key and, once checked, the network it serves. */
export interface SourceEntry {
  key: string;
  source: ChainSource;
  facts?: NetworkFacts;
}

/** The deps and the state one chains service keeps between calls. */
export interface ChainsContext extends ChainsDeps {
  /** The last start of each chain's loop, milliseconds since the epoch. */
  lastRun: Map<ChainName, number>;
  /** Chains whose loop runs now in this process. */
  running: Set<ChainName>;
  /** One source per chain while its settings stay the same: its request budget and caches live on. */
  built: Map<ChainName, SourceEntry>;
}

/** A fresh context: nothing run yet, no source built. */
export function createChainsContext(deps: ChainsDeps): ChainsContext {
  return { ...deps, lastRun: new Map(), running: new Set(), built: new Map() };
}

/** A chain's settings in force: its row (API key opened) over the environment over the catalog. */
export function settingsOf(
  ctx: ChainsContext,
  chain: ChainName,
  row: ChainWatcherRow | undefined,
): EffectiveChainSettings {
  const info = chainInfo(chain);
  if (!info) throw new AppError('NOT_FOUND');
  return effectiveSettings(
    info,
    row
      ? {
          url: row.url,
          apiKey: row.apiKeySealed ? ctx.secretBox.open(row.apiKeySealed) : null,
          confirmations: row.confirmations,
          tokenContract: row.tokenContract,
          pollSeconds: row.pollSeconds,
          chainId: row.chainId,
          genesisHash: row.genesisHash,
          rps: row.rps,
          enabled: row.enabled,
        }
      : null,
    ctx.env[chain],
  );
}

/** A chain as `GET /admin/chains` shows it. */
export function view(ctx: ChainsContext, chain: ChainName, row: ChainWatcherRow | undefined) {
  return chainView(chain, settingsOf(ctx, chain, row), row);
}

/** The chain named `name`; NOT_FOUND for a name that is not a chain. */
export function chainOf(name: string): ChainName {
  if (!chainInfo(name)) throw new AppError('NOT_FOUND');
  return name as ChainName;
}

/** The kept source of a chain, built anew when its settings changed. */
export function sourceOf(
  ctx: ChainsContext,
  chain: ChainName,
  settings: EffectiveChainSettings,
): SourceEntry {
  const key = sourceKey(settings);
  let entry = ctx.built.get(chain);
  if (entry?.key !== key) {
    entry = { key, source: ctx.sources(settings) };
    ctx.built.set(chain, entry);
  }
  return entry;
}

/** Errors as operators see them: every URL redacted, the key and URL credentials never shown. */
export function shown(settings: EffectiveChainSettings, message: string): string {
  let password: string | null = null;
  try {
    password = settings.url ? decodeURIComponent(new URL(settings.url).password) || null : null;
  } catch {
    password = null;
  }
  return redactText(message, [settings.apiKey, password]);
}

import type { ChainEnvSettings } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { redactText, redactUrl } from '../../lib/redact.js';
import type { SecretBox } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { CHAIN_NAMES, type ChainName, chainInfo } from './chain-catalog.js';
import { type EffectiveChainSettings, effectiveSettings } from './chain-settings.js';
import { ChainMismatchError, type ChainSource, ChainSourceError, type NetworkFacts } from './chain-source.js';
import { chainView, emptyRow, lagLimit, sourceKey, verificationKey } from './chain-view.js';
import { runWatcherLoop, type WatcherEvents, type WatcherLedger } from './chain-watcher.js';
import {
  type ChainWatcherRow,
  chainRow,
  chainRows,
  recordOutcome,
  saveChainSettings,
  saveVerification,
} from './chains-repository.js';

export { lagLimit };

/** `PUT /admin/chains/{chain}` body: omitted fields keep their values; null clears one. */
export interface ChainSettingsInput {
  url?: string | null | undefined;
  api_key?: string | null | undefined;
  confirmations?: number | null | undefined;
  token_contract?: string | null | undefined;
  poll_seconds?: number | null | undefined;
  start_height?: number | undefined;
  chain_id?: number | null | undefined;
  genesis_hash?: string | null | undefined;
  rps?: number | null | undefined;
  enabled?: boolean | undefined;
}

/** Builds the source of a chain from its settings in force (chain-sources.ts). */
export type SourceFactory = (settings: EffectiveChainSettings) => ChainSource;

/**
 * The built-in chain watchers (docs/decisions.md sections 25 and 34): operators' settings (admin API, CLI, console, environment),
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
  /** CHAIN_DROP_AFTER_SECONDS (default 3600). */
  dropAfterSeconds?: number;
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
            genesisHash: row.genesisHash,
            rps: row.rps,
            enabled: row.enabled,
          }
        : null,
      deps.env[chain],
    );
  }

  const view = (chain: ChainName, row: ChainWatcherRow | undefined) =>
    chainView(chain, settingsOf(chain, row), row);

  function chainOf(name: string): ChainName {
    if (!chainInfo(name)) throw new AppError('NOT_FOUND');
    return name as ChainName;
  }

  const lastRun = new Map<ChainName, number>();
  const running = new Set<ChainName>();
  /** One source per chain while its settings stay the same: its request budget and caches live on. */
  const sources = new Map<ChainName, { key: string; source: ChainSource; facts?: NetworkFacts }>();

  function sourceOf(chain: ChainName, settings: EffectiveChainSettings) {
    const key = sourceKey(settings);
    let entry = sources.get(chain);
    if (entry?.key !== key) {
      entry = { key, source: deps.sources(settings) };
      sources.set(chain, entry);
    }
    return entry;
  }

  /** Errors as operators see them: every URL redacted, the key and URL credentials never shown. */
  function shown(settings: EffectiveChainSettings, message: string): string {
    let password: string | null = null;
    try {
      password = settings.url ? decodeURIComponent(new URL(settings.url).password) || null : null;
    } catch {
      password = null;
    }
    return redactText(message, [settings.apiKey, password]);
  }

  /** The network check, once per source (docs/decisions.md section 34); its result is kept on the row. */
  async function verified(chain: ChainName, settings: EffectiveChainSettings) {
    const entry = sourceOf(chain, settings);
    if (!entry.facts) {
      const facts = await entry.source.verifyNetwork();
      await saveVerification(
        db,
        chain,
        { ...facts, verifiedFor: verificationKey(settings) },
        new Date(clock.now()),
      );
      entry.facts = facts;
    }
    return entry.source;
  }

  async function runChain(chain: ChainName): Promise<void> {
    const settings = settingsOf(chain, await chainRow(db, chain));
    if (!settings.enabled || !settings.url) return;
    const outcome = await database.withLock(`chain-watcher:${chain}`, async () => {
      try {
        return await runWatcherLoop({
          database,
          clock,
          settings,
          source: await verified(chain, settings),
          ledger: deps.ledger,
          dropAfterMs: (deps.dropAfterSeconds ?? 3600) * 1000,
          ...(deps.events ? { events: deps.events } : {}),
        });
      } catch (err) {
        const message = shown(settings, (err as Error).message);
        await recordOutcome(db, chain, { ok: false, message }, new Date(clock.now())).catch(() => undefined);
        deps.events?.onError?.(chain, message);
        throw err instanceof ChainSourceError
          ? new ChainSourceError(message, err.status)
          : new Error(message);
      }
    });
    if (outcome.skipped) return;
  }

  /**
   * A fresh source for `settings` and its network check, the errors turned into VALIDATION_ERROR
   * naming the setting to fix (with every URL redacted). The source is kept for the loop.
   */
  async function checkSource(chain: ChainName, settings: EffectiveChainSettings) {
    let source: ChainSource;
    try {
      source = deps.sources(settings);
    } catch (err) {
      throw invalidField('url', shown(settings, (err as Error).message));
    }
    let facts: NetworkFacts;
    try {
      facts = await source.verifyNetwork();
    } catch (err) {
      const message = shown(settings, (err as Error).message);
      if (err instanceof ChainMismatchError) throw invalidField(err.field, message);
      throw invalidField('url', `the provider did not answer the network check: ${message}`);
    }
    sources.set(chain, { key: sourceKey(settings), source, facts });
    return { source, facts };
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
     * `PUT /admin/chains/{chain}`: merges the settings (docs/decisions.md section 25: omitted fields
     * keep their values). When the watcher will run, the URL is checked first (outside any
     * transaction, section 34): it must serve the expected network (chain id, TON global_id or
     * genesis hash: VALIDATION_ERROR naming `chain_id` or `genesis_hash` with the network found) and
     * hold the token with the chain's decimals (naming `token_contract`); a provider that does not
     * answer is refused naming `url`. Its head gives the default start (head minus confirmations).
     * The cursor is set on first configuration or when `start_height` is given. Audited with the URL
     * redacted and without the API key.
     */
    async configure(name: string, input: ChainSettingsInput, actor: AdminActor) {
      const chain = chainOf(name);
      const info = chainInfo(chain);
      if (!info) throw new AppError('NOT_FOUND');
      if (input.token_contract && !info.token)
        throw invalidField('token_contract', `${chain} watches only its coin`);
      if (input.chain_id != null && info.family === 'esplora')
        throw invalidField(
          'chain_id',
          'applies to EVM chains, TRON and TON; Bitcoin and Litecoin take genesis_hash',
        );
      if (input.genesis_hash != null && info.family !== 'esplora')
        throw invalidField('genesis_hash', 'applies to Bitcoin and Litecoin only');
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
        ...(input.genesis_hash !== undefined
          ? { genesisHash: input.genesis_hash?.toLowerCase() ?? null }
          : {}),
        ...(input.rps !== undefined ? { rps: input.rps } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      };
      const merged = settingsOf(chain, { ...(before ?? emptyRow(chain)), ...patch } as ChainWatcherRow);
      let cursor: { height: number } | null = null;
      let facts: NetworkFacts | null = null;
      if (merged.enabled && merged.url) {
        const checked = await checkSource(chain, merged);
        facts = checked.facts;
        if (input.start_height !== undefined) cursor = { height: input.start_height - 1 };
        else if (before?.cursorHeight == null) {
          const head = await checked.source.head().catch((err: Error) => {
            throw invalidField('url', `the provider did not answer: ${shown(merged, err.message)}`);
          });
          cursor = { height: Math.max(-1, head.height - merged.confirmations - 1) };
        }
      } else if (input.start_height !== undefined) cursor = { height: input.start_height - 1 };
      await db.transaction(async (tx) => {
        const now = new Date(clock.now());
        await saveChainSettings(tx, chain, patch, cursor, now);
        if (facts) await saveVerification(tx, chain, { ...facts, verifiedFor: verificationKey(merged) }, now);
        const { apiKeySealed: _hidden, ...rest } = patch;
        await writeAudit(tx, actor, {
          action: 'chain.configure',
          targetType: 'chain',
          targetId: chain,
          after: {
            ...rest,
            ...(patch.url !== undefined ? { url: redactUrl(patch.url) } : {}),
            ...(input.api_key !== undefined ? { api_key: input.api_key === null ? null : 'set' } : {}),
            ...(cursor ? { start_height: cursor.height + 1 } : {}),
            ...(facts ? { network: facts.network, token_decimals: facts.tokenDecimals } : {}),
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
     * Per enabled chain, 1 when operators should look (docs/decisions.md section 25, "Alert"): lag
     * above `lagLimit` blocks, the last error newer than the last success, or no success for 10 poll
     * intervals; else 0. Also the lag in blocks.
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

export type ChainsService = ReturnType<typeof createChainsService>;

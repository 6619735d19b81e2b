import { CHAIN_NAMES, type ChainName } from './chain-catalog.js';
import type { EffectiveChainSettings } from './chain-settings.js';
import { ChainSourceError } from './chain-source.js';
import { lagLimit, verificationKey } from './chain-view.js';
import { runWatcherLoop } from './chain-watcher.js';
import { type ChainsContext, settingsOf, shown, sourceOf, view } from './chains-context.js';
import { chainRow, chainRows, recordOutcome, saveVerification } from './chains-repository.js';

/** The network check, once per source (docs/decisions.md section 34); its result is kept on the row. */
async function verified(ctx: ChainsContext, chain: ChainName, settings: EffectiveChainSettings) {
  const entry = sourceOf(ctx, chain, settings);
  if (!entry.facts) {
    const facts = await entry.source.verifyNetwork();
    await saveVerification(
      ctx.database.db,
      chain,
      { ...facts, verifiedFor: verificationKey(settings) },
      new Date(ctx.clock.now()),
    );
    entry.facts = facts;
  }
  return entry.source;
}

/**
 * One loop of one chain under its advisory lock; an error is recorded on the chain (redacted),
 * reported to `events.onError` and thrown again.
 */
export async function runChain(ctx: ChainsContext, chain: ChainName): Promise<void> {
  const { database, clock } = ctx;
  const db = database.db;
  const settings = settingsOf(ctx, chain, await chainRow(db, chain));
  if (!settings.enabled || !settings.url) return;
  const outcome = await database.withLock(`chain-watcher:${chain}`, async () => {
    try {
      return await runWatcherLoop({
        database,
        clock,
        settings,
        source: await verified(ctx, chain, settings),
        ledger: ctx.ledger,
        dropAfterMs: (ctx.dropAfterSeconds ?? 3600) * 1000,
        ...(ctx.events ? { events: ctx.events } : {}),
      });
    } catch (err) {
      const message = shown(settings, (err as Error).message);
      await recordOutcome(db, chain, { ok: false, message }, new Date(clock.now())).catch(() => undefined);
      ctx.events?.onError?.(chain, message);
      throw err instanceof ChainSourceError ? new ChainSourceError(message, err.status) : new Error(message);
    }
  });
  if (outcome.skipped) return;
}

/**
 * Runs the loop of every enabled chain whose poll interval has passed (called every second by
 * the jobs). A chain's loop never overlaps itself in a process, and runs in one process at a
 * time across all of them. Errors are recorded on the chain and reported to `onError`.
 */
export async function runDue(
  ctx: ChainsContext,
  onError?: (chain: ChainName, err: unknown) => void,
): Promise<void> {
  const rows = new Map((await chainRows(ctx.database.db)).map((r) => [r.chain, r]));
  const now = ctx.clock.now();
  for (const chain of CHAIN_NAMES) {
    const s = settingsOf(ctx, chain, rows.get(chain));
    if (!s.enabled || ctx.running.has(chain)) continue;
    if (now - (ctx.lastRun.get(chain) ?? 0) < s.pollSeconds * 1000) continue;
    ctx.lastRun.set(chain, now);
    ctx.running.add(chain);
    // Not awaited: a slow provider of one chain never delays the others' loops.
    void runChain(ctx, chain)
      .catch((err) => onError?.(chain, err))
      .finally(() => ctx.running.delete(chain));
  }
}

/**
 * Per enabled chain, 1 when operators should look (docs/decisions.md section 25, "Alert"): lag
 * above `lagLimit` blocks, the last error newer than the last success, or no success for 10 poll
 * intervals; else 0. Also the lag in blocks.
 */
export async function health(
  ctx: ChainsContext,
): Promise<{ alert: Record<string, number>; lag: Record<string, number> }> {
  const rows = new Map((await chainRows(ctx.database.db)).map((r) => [r.chain, r]));
  const alert: Record<string, number> = {};
  const lag: Record<string, number> = {};
  const now = ctx.clock.now();
  for (const chain of CHAIN_NAMES) {
    const row = rows.get(chain);
    const s = settingsOf(ctx, chain, row);
    if (!s.enabled) continue;
    const v = view(ctx, chain, row);
    lag[chain] = v.lag_blocks ?? 0;
    const failing =
      row?.lastErrorAt != null && (row.lastSuccessAt == null || row.lastErrorAt > row.lastSuccessAt);
    const silent = now - (row?.lastSuccessAt?.getTime() ?? 0) > 10 * s.pollSeconds * 1000;
    alert[chain] = failing || silent || (v.lag_blocks ?? 0) > lagLimit(s) ? 1 : 0;
  }
  return { alert, lag };
}

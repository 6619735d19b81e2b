// ox's Value (viem's own unit conversions, one small module): importing viem's barrel cost the
// service 0.4-0.8 s of every start (docs/decisions.md section 48).
import { format as formatUnits, from as parseUnits } from 'ox/Value';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { AwaitingTransfer, ObservedTransfer } from '../crypto/index.js';
import type { ChainName } from './chain-catalog.js';
import type { EffectiveChainSettings } from './chain-settings.js';
import {
  type BlockRef,
  type ChainSource,
  ChainSourceError,
  type Location,
  type SeenTransfer,
  TransferMismatchError,
} from './chain-source.js';
import {
  chainRow,
  ensureChainRow,
  recordOutcome,
  rewindCursor,
  saveHead,
  saveProgress,
} from './chains-repository.js';

/** What a watcher needs of the crypto module (its public interface: crypto/index.ts). */
export interface WatcherLedger {
  watchList(network: string): Promise<{ coin: string[]; token: string[] }>;
  observe(ex: Parameters<typeof saveProgress>[0], transfers: readonly ObservedTransfer[]): Promise<number>;
  awaiting(network: string): Promise<AwaitingTransfer[]>;
  /** Writes the confirmations; `block` moves it (null: back in the mempool) and clears a vanishing. */
  recount(id: number, confirmations: number, block?: BlockRef | null): Promise<void>;
  /** The provider no longer knows it: vanished since `since` (kept if set), not asked before `next`. */
  vanish(id: number, since: Date, next: Date): Promise<void>;
  drop(id: number): Promise<void>;
  /** Held for an operator (`review`) with a reason they can read; false when no longer awaiting. */
  hold(id: number, reason: string): Promise<boolean>;
  settle(id: number, confirmations: number): Promise<{ outcome: string; order_id: string | null } | null>;
  creditedAbove(network: string, height: number): Promise<AwaitingTransfer[]>;
  flagReorgedAfterCredit(id: number): Promise<string | null>;
}

/** Events a loop reports for metrics and logs. */
export interface WatcherEvents {
  onLag?(chain: ChainName, blocks: number): void;
  onError?(chain: ChainName, message: string): void;
  onTransfer?(chain: ChainName, outcome: string): void;
  onAlert?(chain: ChainName, kind: 'reorged_after_credit', detail: Record<string, unknown>): void;
}

/** The summary of one loop. */
export interface LoopResult {
  scanned: { from: number; to: number } | null;
  seen: number;
  settled: number;
  dropped: number;
  head: BlockRef;
}

/** How many blocks a reorg is searched back for before the scan restarts below it. */
const REORG_SEARCH = 64;
const RECENT_KEPT = 20;
/** The longest pause between two checks of a vanished transfer. */
const VANISHED_MAX_GAP_MS = 10 * 60_000;

/** What a loop needs (see runWatcherLoop). */
export interface WatcherDeps {
  database: Database;
  clock: Clock;
  settings: EffectiveChainSettings;
  source: ChainSource;
  ledger: WatcherLedger;
  events?: WatcherEvents;
  /** CHAIN_DROP_AFTER_SECONDS in ms: how long a vanished transfer is re-checked before it is dropped. */
  dropAfterMs?: number;
}

/**
 * One watcher loop for a chain (docs/decisions.md sections 25 and 34): checks the cursor's block is
 * still on the best chain (else walks back and re-checks credits above it), scans the blocks after
 * the cursor up to the head (at most `source.maxRange`; a source that sees the mempool is scanned
 * every loop, new blocks or not), records what it saw with the new cursor in one transaction, then
 * counts confirmations of awaiting transfers (the payment's block counts as 1) and credits those
 * that reached the chain's number after locating them again. A transfer the provider no longer knows
 * is re-checked with growing pauses and dropped after `dropAfterMs`; after its credit, a reorg is an
 * alert (never a reversal). Throws the source's ChainSourceError; the caller records it.
 */
export async function runWatcherLoop(deps: WatcherDeps): Promise<LoopResult> {
  const { database, clock, settings, source } = deps;
  const db = database.db;
  const chain = settings.info.chain;
  const events = deps.events ?? {};
  const head = await source.head();
  await ensureChainRow(db, chain);
  // Kept first: when the scan below fails, GET /admin/chains still shows how far behind it is.
  await saveHead(db, chain, head);
  const row = await chainRow(db, chain);
  // Never configured through the API: start at the head minus the confirmations, as a PUT would.
  let cursorHeight = row?.cursorHeight ?? Math.max(-1, head.height - settings.confirmations - 1);
  const cursorHash = row?.cursorHash ?? null;
  let reorgedAbove: number | null = null;

  if (cursorHash) {
    const now = cursorHeight <= head.height ? await source.blockHash(cursorHeight) : null;
    if (now !== cursorHash) {
      // Only the cursor's own hash is kept, so the scan restarts REORG_SEARCH blocks lower: what is
      // seen again is de-duplicated by its key, and credits above the new cursor are re-checked.
      cursorHeight = Math.max(-1, Math.min(cursorHeight, head.height) - REORG_SEARCH);
      await rewindCursor(db, chain, cursorHeight);
      await checkCreditedAbove(deps, cursorHeight);
      reorgedAbove = cursorHeight;
    }
  }

  const { scanned, seen, to } = await scanNew(deps, row?.recent ?? [], head, cursorHeight);
  events.onLag?.(chain, Math.max(0, head.height - Math.max(to, cursorHeight)));
  const { settled, dropped, failures } = await settleAwaiting(deps, head, reorgedAbove);
  const at = new Date(clock.now());
  if (failures.length > 0) {
    const message = `credit failed, retried next loop: ${failures.join('; ')}`;
    await recordOutcome(db, chain, { ok: false, message }, at);
    events.onError?.(chain, message);
  } else await recordOutcome(db, chain, { ok: true, head }, at);
  return { scanned, seen, settled, dropped, head };
}

/** Scans after the cursor (and the mempool) and records what it saw with the new cursor. */
async function scanNew(
  deps: WatcherDeps,
  recentBefore: Array<Record<string, unknown>>,
  head: BlockRef,
  cursorHeight: number,
) {
  const { database, clock, settings, source, ledger } = deps;
  const from = cursorHeight + 1;
  const to = Math.min(head.height, from + source.maxRange - 1);
  if (from > to && !source.seesMempool) return { scanned: null, seen: 0, to };
  const watch = await ledger.watchList(settings.info.network);
  const found =
    watch.coin.length + watch.token.length > 0 ? await source.scan(from, Math.max(to, from - 1), watch) : [];
  const observed = found.filter((t) => t.amount > 0n).map((t) => toObserved(settings, t));
  const cursor =
    from > to ? null : to === head.height ? head : { height: to, hash: await hashOf(source, to) };
  const recent = observed.length > 0 ? mergeRecent(recentBefore, observed, clock.now()) : undefined;
  let seen = 0;
  await database.db.transaction(async (tx) => {
    seen = await ledger.observe(tx, observed);
    await saveProgress(tx, settings.info.chain, { cursor, head, recent }, new Date(clock.now()));
  });
  return { scanned: from <= to ? { from, to } : null, seen, to };
}

/**
 * The hash of block `height` for the cursor. A cursor without one would skip the next loop's reorg
 * check, so a source that has no block there fails the loop (ChainSourceError) and the cursor stays.
 */
async function hashOf(source: ChainSource, height: number): Promise<string> {
  const hash = await source.blockHash(height);
  if (!hash)
    throw new ChainSourceError(`the provider has no block ${height}, below its head: retried next loop`);
  return hash;
}

/** Counts, re-checks and credits the awaiting transfers of the chain (see runWatcherLoop). */
async function settleAwaiting(deps: WatcherDeps, head: BlockRef, reorgedAbove: number | null) {
  const { clock, settings, ledger } = deps;
  const chain = settings.info.chain;
  let settled = 0;
  let dropped = 0;
  const failures: string[] = [];
  const vanished = async (t: AwaitingTransfer) => {
    if (await vanish(deps, t)) {
      dropped += 1;
      deps.events?.onTransfer?.(chain, 'dropped');
    }
  };
  for (const t of await ledger.awaiting(settings.info.network)) {
    if (t.nextCheckAt && t.nextCheckAt.getTime() > clock.now()) continue;
    const confirmations = t.blockHeight === null ? 0 : Math.max(0, head.height - t.blockHeight + 1);
    // Short of its confirmations it is only counted, unless a reorg just replaced its block.
    const replaced = reorgedAbove !== null && t.blockHeight !== null && t.blockHeight > reorgedAbove;
    if (t.blockHeight !== null && confirmations < settings.confirmations && !t.vanishedAt && !replaced) {
      await ledger.recount(t.id, confirmations);
      continue;
    }
    // Located again: a mempool transfer may be mined by now; one due for its credit may be gone.
    const where = await locateOrHold(deps, t);
    if (where === 'held') {
      deps.events?.onTransfer?.(chain, 'review');
      continue;
    }
    if (where === null) {
      await vanished(t);
      continue;
    }
    if (where === 'unconfirmed') {
      if (t.blockHeight !== null || t.vanishedAt) await ledger.recount(t.id, 0, null);
      continue;
    }
    if (where.hash !== t.blockHash || where.height !== t.blockHeight || t.vanishedAt) {
      await ledger.recount(t.id, Math.max(0, head.height - where.height + 1), where);
      continue;
    }
    if (confirmations < settings.confirmations) continue;
    try {
      const result = await ledger.settle(t.id, confirmations);
      if (result) {
        settled += 1;
        deps.events?.onTransfer?.(chain, result.outcome);
      }
    } catch (err) {
      // One transfer that cannot be credited now (no exchange rate for a RUB-settled merchant) stays
      // awaiting and is tried again; the others go on.
      failures.push(`${t.txHash}:${t.position}: ${(err as Error).message}`);
    }
  }
  return { settled, dropped, failures };
}

/**
 * Where a recorded transfer is now, or the TransferMismatchError of one the provider holds but that
 * no longer pays what was seen (only that transfer is in doubt). Other provider errors fail the loop.
 */
async function locateOrMismatch(
  deps: WatcherDeps,
  t: AwaitingTransfer,
): Promise<Location | TransferMismatchError> {
  try {
    return await deps.source.locate(transferOf(deps.settings, t));
  } catch (err) {
    if (err instanceof TransferMismatchError) return err;
    throw err;
  }
}

/**
 * Where an awaiting transfer is now. One that no longer pays what was seen is held for review with
 * the provider's words, so one doubtful transfer neither gets credited nor stops the others'
 * credits: `'held'`.
 */
async function locateOrHold(deps: WatcherDeps, t: AwaitingTransfer): Promise<Location | 'held'> {
  const where = await locateOrMismatch(deps, t);
  if (!(where instanceof TransferMismatchError)) return where;
  await deps.ledger.hold(t.id, `the provider no longer shows this payment as seen: ${where.message}`);
  return 'held';
}

/**
 * A transfer the provider no longer knows: re-checked after a pause as long as it has been gone
 * (at least one poll, at most 10 minutes), dropped once gone for `dropAfterMs`. True when dropped.
 */
async function vanish(deps: WatcherDeps, t: AwaitingTransfer): Promise<boolean> {
  const now = deps.clock.now();
  const since = t.vanishedAt?.getTime() ?? now;
  if (now - since >= (deps.dropAfterMs ?? 3600_000)) {
    await deps.ledger.drop(t.id);
    return true;
  }
  const gap = Math.min(Math.max(now - since, deps.settings.pollSeconds * 1000), VANISHED_MAX_GAP_MS);
  await deps.ledger.vanish(t.id, new Date(since), new Date(now + gap));
  return false;
}

async function checkCreditedAbove(deps: WatcherDeps, height: number): Promise<void> {
  const { ledger, settings } = deps;
  for (const t of await ledger.creditedAbove(settings.info.network, height)) {
    // After a reorg, a credited transfer that no longer pays what was seen is as gone as one the
    // provider no longer knows: the same alert, never a reversal.
    const where = await locateOrMismatch(deps, t);
    if (where !== null && where !== 'unconfirmed' && !(where instanceof TransferMismatchError)) continue;
    const orderId = await ledger.flagReorgedAfterCredit(t.id);
    deps.events?.onAlert?.(settings.info.chain, 'reorged_after_credit', {
      tx_hash: t.txHash,
      position: t.position,
      order_id: orderId,
    });
  }
}

/** A recorded transfer as the source re-checks it: the amount back in integer units (exact). */
function transferOf(settings: EffectiveChainSettings, t: AwaitingTransfer): SeenTransfer {
  const asset = t.asset === 'token' ? settings.info.token : settings.info.coin;
  let amount = 0n;
  try {
    if (asset) amount = parseUnits(t.amount, asset.decimals);
  } catch {
    // An amount that does not parse in the asset's decimals is not checked against (0n: any).
  }
  return {
    asset: t.asset ?? 'coin',
    address: t.address,
    txHash: t.txHash,
    position: t.position,
    amount,
    block: t.blockHeight !== null && t.blockHash ? { height: t.blockHeight, hash: t.blockHash } : null,
  };
}

/**
 * Integer units to coin units with the asset's decimals (exact: ox's Value.format, no float; 2^256-1
 * units stay all 78 digits, never 1.07e+73).
 */
function toObserved(settings: EffectiveChainSettings, t: SeenTransfer): ObservedTransfer {
  const asset = t.asset === 'token' ? settings.info.token : settings.info.coin;
  if (!asset) throw new Error(`${settings.info.chain} has no ${t.asset}`);
  return {
    network: settings.info.network,
    asset: t.asset,
    address: t.address,
    txHash: t.txHash,
    position: t.position,
    amount: formatUnits(t.amount, asset.decimals),
    block: t.block,
    paidAt: t.paidAt,
  };
}

function mergeRecent(
  before: Array<Record<string, unknown>>,
  observed: ObservedTransfer[],
  nowMs: number,
): Array<Record<string, unknown>> {
  const at = new Date(nowMs).toISOString();
  const added = observed.map((t) => ({
    tx_hash: t.txHash,
    position: t.position,
    address: t.address,
    asset: t.asset,
    amount: t.amount,
    height: t.block?.height ?? null,
    at,
  }));
  return [...added.reverse(), ...before].slice(0, RECENT_KEPT);
}

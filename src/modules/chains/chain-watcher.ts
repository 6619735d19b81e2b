import { formatUnits } from 'viem';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { AwaitingTransfer, ObservedTransfer } from '../crypto/index.js';
import type { ChainName } from './chain-catalog.js';
import type { EffectiveChainSettings } from './chain-settings.js';
import type { BlockRef, ChainSource, SeenTransfer } from './chain-source.js';
import { chainRow, ensureChainRow, recordOutcome, rewindCursor, saveProgress } from './chains-repository.js';

/** What a watcher needs of the crypto module (its public interface: crypto/index.ts). */
export interface WatcherLedger {
  watchList(network: string): Promise<{ coin: string[]; token: string[] }>;
  observe(ex: Parameters<typeof saveProgress>[0], transfers: readonly ObservedTransfer[]): Promise<number>;
  awaiting(network: string): Promise<AwaitingTransfer[]>;
  recount(id: number, confirmations: number, block?: BlockRef): Promise<void>;
  drop(id: number): Promise<void>;
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

/**
 * One watcher loop for a chain (issue 20 section 1): checks the cursor's block is still on the best
 * chain (else walks back to the fork and re-checks credits above it), scans the blocks after the
 * cursor up to the head (at most `source.maxRange`), records what it saw with the new cursor in one
 * transaction, then counts confirmations of awaiting transfers (the payment's block counts as 1)
 * and credits those that reached the chain's number after re-checking their inclusion. A transfer a
 * reorg removed before its credit is dropped; after its credit, an alert (never a reversal).
 * Throws the source's ChainSourceError; the caller records it.
 */
export async function runWatcherLoop(deps: {
  database: Database;
  clock: Clock;
  settings: EffectiveChainSettings;
  source: ChainSource;
  ledger: WatcherLedger;
  events?: WatcherEvents;
}): Promise<LoopResult> {
  const { database, clock, settings, source, ledger } = deps;
  const db = database.db;
  const chain = settings.info.chain;
  const network = settings.info.network;
  const events = deps.events ?? {};
  const head = await source.head();
  await ensureChainRow(db, chain);
  const row = await chainRow(db, chain);
  // Never configured through the API: start at the head minus the confirmations, as a PUT would.
  let cursorHeight = row?.cursorHeight ?? Math.max(-1, head.height - settings.confirmations - 1);
  const cursorHash = row?.cursorHash ?? null;

  if (cursorHash) {
    const now = cursorHeight <= head.height ? await source.blockHash(cursorHeight) : null;
    if (now !== cursorHash) {
      // Only the cursor's own hash is kept, so the scan restarts REORG_SEARCH blocks lower: what is
      // seen again is de-duplicated by its key, and credits above the new cursor are re-checked.
      cursorHeight = Math.max(-1, Math.min(cursorHeight, head.height) - REORG_SEARCH);
      await rewindCursor(db, chain, cursorHeight);
      await checkCreditedAbove(deps, cursorHeight);
    }
  }

  let scanned: LoopResult['scanned'] = null;
  let seen = 0;
  const from = cursorHeight + 1;
  const to = Math.min(head.height, from + source.maxRange - 1);
  if (from <= to) {
    const watch = await ledger.watchList(network);
    const found = watch.coin.length + watch.token.length > 0 ? await source.scan(from, to, watch) : [];
    const observed = found.filter((t) => t.amount > 0n).map((t) => toObserved(settings, t));
    const cursor = to === head.height ? head : { height: to, hash: (await source.blockHash(to)) ?? '' };
    const recent = observed.length > 0 ? mergeRecent(row?.recent ?? [], observed, clock.now()) : undefined;
    await db.transaction(async (tx) => {
      seen = await ledger.observe(tx, observed);
      await saveProgress(tx, chain, { cursor, head, recent }, new Date(clock.now()));
    });
    scanned = { from, to };
  }
  events.onLag?.(chain, Math.max(0, head.height - Math.max(to, cursorHeight)));

  let settled = 0;
  let dropped = 0;
  const failures: string[] = [];
  for (const t of await ledger.awaiting(network)) {
    if (t.blockHeight === null) {
      // Not in a block when seen (mempool): look again, it may have been mined since.
      const block = await source.locate(transferOf(t));
      if (block) await ledger.recount(t.id, head.height - block.height + 1, block);
      continue;
    }
    const confirmations = Math.max(0, head.height - t.blockHeight + 1);
    if (confirmations < settings.confirmations) {
      await ledger.recount(t.id, confirmations);
      continue;
    }
    // Inclusion re-checked just before the credit: the block may have been replaced.
    const block = await source.locate(transferOf(t));
    if (!block) {
      await ledger.drop(t.id);
      dropped += 1;
      events.onTransfer?.(chain, 'dropped');
      continue;
    }
    if (block.hash !== t.blockHash || block.height !== t.blockHeight) {
      await ledger.recount(t.id, head.height - block.height + 1, block);
      continue;
    }
    try {
      const result = await ledger.settle(t.id, confirmations);
      if (result) {
        settled += 1;
        events.onTransfer?.(chain, result.outcome);
      }
    } catch (err) {
      // One transfer that cannot be credited now (no exchange rate for a RUB-settled merchant) stays
      // awaiting and is tried again; the others go on.
      failures.push(`${t.txHash}:${t.position}: ${(err as Error).message}`);
    }
  }
  const at = new Date(clock.now());
  if (failures.length > 0) {
    const message = `credit failed, retried next loop: ${failures.join('; ')}`;
    await recordOutcome(db, chain, { ok: false, message }, at);
    events.onError?.(chain, message);
  } else await recordOutcome(db, chain, { ok: true, head }, at);
  return { scanned, seen, settled, dropped, head };
}

async function checkCreditedAbove(deps: Parameters<typeof runWatcherLoop>[0], height: number): Promise<void> {
  const { ledger, source, settings } = deps;
  for (const t of await ledger.creditedAbove(settings.info.network, height)) {
    const block = await source.locate(transferOf(t));
    if (block) continue;
    const orderId = await ledger.flagReorgedAfterCredit(t.id);
    deps.events?.onAlert?.(settings.info.chain, 'reorged_after_credit', {
      tx_hash: t.txHash,
      position: t.position,
      order_id: orderId,
    });
  }
}

function transferOf(t: AwaitingTransfer): SeenTransfer {
  return {
    asset: t.asset ?? 'coin',
    address: t.address,
    txHash: t.txHash,
    position: t.position,
    amount: 0n,
    block: t.blockHeight !== null && t.blockHash ? { height: t.blockHeight, hash: t.blockHash } : null,
  };
}

/** Integer units to coin units with the asset's decimals (exact: viem's formatUnits, no float). */
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

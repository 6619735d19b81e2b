import { and, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { cryptoTransactions } from '../../db/tables/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { CRYPTO_METHODS } from '../../modules/catalog/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { cryptoAddressesToWatch } from './crypto-order-reads.js';
import { normaliseTxHash } from './crypto-rules.js';
import { POOL_HOLD_MS } from './deposit-addresses.js';

/** A transfer a built-in watcher read from its chain, amounts already in coin units (decimal text). */
export interface ObservedTransfer {
  network: string;
  asset: 'coin' | 'token';
  address: string;
  txHash: string;
  position: number;
  /** Decimal text in coin units (units / 10^decimals, exact). */
  amount: string;
  block: { height: number; hash: string } | null;
  /** The chain's time of its transaction, when the source reads it (TON). */
  paidAt?: Date | undefined;
}

/** A transfer waiting for its confirmations (outcome `awaiting`). */
export interface AwaitingTransfer {
  id: number;
  network: string;
  asset: 'coin' | 'token' | null;
  address: string;
  txHash: string;
  position: number;
  amount: string;
  blockHeight: number | null;
  blockHash: string | null;
  /** When the provider first no longer knew it (re-checked until dropped), or null. */
  vanishedAt: Date | null;
  /** Not asked for again before this (a vanished transfer's backoff), or null. */
  nextCheckAt: Date | null;
}

/** The columns of a transfer the watcher follows (AwaitingTransfer). */
const awaitingColumns = {
  id: cryptoTransactions.id,
  network: cryptoTransactions.network,
  asset: cryptoTransactions.asset,
  address: cryptoTransactions.address,
  txHash: cryptoTransactions.txHash,
  position: cryptoTransactions.position,
  amount: cryptoTransactions.amount,
  blockHeight: cryptoTransactions.blockHeight,
  blockHash: cryptoTransactions.blockHash,
  vanishedAt: cryptoTransactions.vanishedAt,
  nextCheckAt: cryptoTransactions.nextCheckAt,
};

/** The row of a transfer a watcher saw: awaiting its confirmations, in its block when it has one. */
function observedRow(t: ObservedTransfer, txHash: string) {
  return {
    network: t.network,
    txHash,
    position: t.position,
    address: t.address,
    amount: t.amount,
    confirmations: t.block ? 1 : 0,
    outcome: 'awaiting' as const,
    reportedBy: 'chain-watcher',
    asset: t.asset,
    blockHeight: t.block?.height ?? null,
    blockHash: t.block?.hash ?? null,
    paidAt: t.paidAt ?? null,
  };
}

/**
 * Records transfers a watcher saw, in the caller's transaction: new ones as `awaiting`; one seen
 * again in another block gets its new block; one a reorg had dropped awaits again. Returns how
 * many rows were new.
 */
async function recordObserved(ex: Executor, transfers: readonly ObservedTransfer[]): Promise<number> {
  let added = 0;
  for (const t of transfers) {
    const txHash = normaliseTxHash(t.network, t.txHash);
    if (!txHash) continue;
    const inserted = await ex
      .insert(cryptoTransactions)
      .values(observedRow(t, txHash))
      .onConflictDoUpdate({
        target: [cryptoTransactions.network, cryptoTransactions.txHash, cryptoTransactions.position],
        set: {
          blockHeight: sql`excluded.block_height`,
          blockHash: sql`excluded.block_hash`,
          outcome: 'awaiting',
          vanishedAt: null,
          nextCheckAt: null,
        },
        // Only rows still waiting (or dropped and back); a credited or reported row never changes.
        setWhere: sql`${cryptoTransactions.outcome} IN ('awaiting', 'dropped') AND ${cryptoTransactions.reportedBy} = 'chain-watcher'`,
      })
      .returning({ id: cryptoTransactions.id, createdAt: cryptoTransactions.createdAt });
    if (inserted.length > 0) added += 1;
  }
  return added;
}

/**
 * Marks a credited transfer that a reorg removed (`reorged_at` = `now`) and writes the audit entry
 * naming its order, once. Returns the order id, or null (none, or flagged already).
 */
async function flagReorgedAfterCredit(database: Database, now: Date, id: number): Promise<string | null> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .update(cryptoTransactions)
      .set({ reorgedAt: now })
      .where(and(eq(cryptoTransactions.id, id), isNull(cryptoTransactions.reorgedAt)))
      .returning();
    const row = rows[0];
    if (!row) return null;
    await writeAudit(
      tx,
      { name: 'system:chain-watcher', ip: '' },
      {
        action: 'crypto.reorged_after_credit',
        targetType: 'order',
        targetId: row.orderId ?? `tx:${row.txHash}`,
        after: {
          network: row.network,
          tx_hash: row.txHash,
          position: row.position,
          amount: row.amount,
          block_height: row.blockHeight,
          block_hash: row.blockHash,
        },
      },
    );
    return row.orderId;
  });
}

/**
 * What the built-in chain watchers (docs/decisions.md sections 25 and 34) record in the crypto
 * module's table: transfers seen and awaiting confirmations, vanished and re-checked, dropped, or
 * credited and then reorged (an alert). The
 * credit itself goes through `settleAwaiting` (crypto-payments.ts), the chain notification's path.
 */
export function createChainTransfers(deps: { database: Database; clock: Clock }) {
  const db = deps.database.db;

  return {
    /**
     * The deposit addresses of `network` to look at: orders pending or ended within the late window
     * (24 h), split by what they take (the coin, or USDT).
     */
    async watchList(network: string): Promise<{ coin: string[]; token: string[] }> {
      const types = Object.entries(CRYPTO_METHODS)
        .filter(([, m]) => m.network === network)
        .map(([type]) => type);
      const rows = await cryptoAddressesToWatch(db, types, new Date(deps.clock.now() - POOL_HOLD_MS));
      const coin = new Set<string>();
      const token = new Set<string>();
      for (const r of rows) (CRYPTO_METHODS[r.type]?.coin === 'USDT' ? token : coin).add(r.address);
      return { coin: [...coin], token: [...token] };
    },

    /**
     * Records transfers the watcher saw, in the caller's transaction (with its cursor): new ones as
     * `awaiting`; one seen again in another block (a reorg moved it) gets its new block; one a reorg
     * had dropped and that came back awaits again. Returns how many rows were new.
     */
    observe: recordObserved,

    /** Transfers of `network` waiting for confirmations, oldest first. */
    async awaiting(network: string, limit = 500): Promise<AwaitingTransfer[]> {
      return db
        .select(awaitingColumns)
        .from(cryptoTransactions)
        .where(and(eq(cryptoTransactions.network, network), eq(cryptoTransactions.outcome, 'awaiting')))
        .orderBy(cryptoTransactions.id)
        .limit(limit);
    },

    /**
     * Writes the confirmations counted so far; with `block`, the block a re-check found the transfer
     * in (null: back in the mempool), which also ends a vanishing (the provider knows it again).
     */
    async recount(id: number, confirmations: number, block?: { height: number; hash: string } | null) {
      await db
        .update(cryptoTransactions)
        .set({
          confirmations,
          ...(block !== undefined
            ? {
                blockHeight: block?.height ?? null,
                blockHash: block?.hash ?? null,
                vanishedAt: null,
                nextCheckAt: null,
              }
            : {}),
        })
        .where(and(eq(cryptoTransactions.id, id), eq(cryptoTransactions.outcome, 'awaiting')));
    },

    /**
     * The provider no longer knows an awaiting transfer (replaced, reorged out): vanished since
     * `since`, asked for again from `next` on (docs/decisions.md section 34).
     */
    async vanish(id: number, since: Date, next: Date) {
      await db
        .update(cryptoTransactions)
        .set({ vanishedAt: since, nextCheckAt: next, confirmations: 0 })
        .where(and(eq(cryptoTransactions.id, id), eq(cryptoTransactions.outcome, 'awaiting')));
    },

    /**
     * A transfer gone for CHAIN_DROP_AFTER_SECONDS before its credit: dropped (seen again, it awaits
     * again).
     */
    async drop(id: number) {
      await db
        .update(cryptoTransactions)
        .set({ outcome: 'dropped', confirmations: 0, nextCheckAt: null })
        .where(and(eq(cryptoTransactions.id, id), eq(cryptoTransactions.outcome, 'awaiting')));
    },

    /**
     * An awaiting transfer the provider no longer pays as seen: held for an operator as `review`
     * with `reason` (their words, shown in the console), never credited by the watcher; an operator
     * may still confirm it with its order (docs/decisions.md section 34). False when it was no
     * longer awaiting.
     */
    async hold(id: number, reason: string): Promise<boolean> {
      const held = await db
        .update(cryptoTransactions)
        .set({ outcome: 'review', reviewReason: reason.slice(0, 500) })
        .where(and(eq(cryptoTransactions.id, id), eq(cryptoTransactions.outcome, 'awaiting')))
        .returning({ id: cryptoTransactions.id });
      return held.length > 0;
    },

    /** Credited transfers of `network` in blocks above `height` (checked again after a reorg). */
    async creditedAbove(network: string, height: number): Promise<AwaitingTransfer[]> {
      return db
        .select(awaitingColumns)
        .from(cryptoTransactions)
        .where(
          and(
            eq(cryptoTransactions.network, network),
            inArray(cryptoTransactions.outcome, ['credited', 'partial']),
            isNotNull(cryptoTransactions.blockHeight),
            gt(cryptoTransactions.blockHeight, height),
            isNull(cryptoTransactions.reorgedAt),
          ),
        );
    },

    /**
     * A reorg removed a transfer after it was credited: never a silent reversal. The row is marked,
     * and an audit entry names the order for operators (docs/decisions.md section 25). Returns the order id, if any.
     */
    flagReorgedAfterCredit: (id: number) =>
      flagReorgedAfterCredit(deps.database, new Date(deps.clock.now()), id),
  };
}

export type ChainTransfers = ReturnType<typeof createChainTransfers>;

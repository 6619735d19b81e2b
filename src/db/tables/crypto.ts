import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the crypto module: only src/rails/crypto/ reads and writes them (docs/architecture.md).

/**
 * Operator-configured account-level extended public keys and the next index of each. A key is known by
 * its address at index 0 (so the same key given as xpub or zpub is one key); switching back to a key
 * used before continues its counter, so an address is never handed out twice. One key per network is active.
 */
export const cryptoXpubs = pgTable(
  'crypto_xpubs',
  {
    network: text('network').notNull(),
    /** The key's address at index 0: its identity. */
    keyId: text('key_id').notNull(),
    xpub: text('xpub').notNull(),
    nextIndex: integer('next_index').notNull().default(0),
    active: boolean('active').notNull().default(true),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.keyId] }),
    uniqueIndex('crypto_xpubs_one_active_uq').on(t.network).where(sql`active`),
    check('crypto_xpubs_next_index_ck', sql`${t.nextIndex} >= 0`),
  ],
);

/** Deposit addresses loaded by operators for networks without xpub derivation (TON). */
export const cryptoPoolAddresses = pgTable(
  'crypto_pool_addresses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    network: text('network').notNull(),
    address: text('address').notNull(),
    lastAssignedAt: ts('last_assigned_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('crypto_pool_address_uq').on(t.network, t.address)],
);

/**
 * Chain transfers reported by the watcher or an operator; one row per (network, tx_hash, position):
 * the hash normalised to 64 lower-case hex characters, the position the transfer's index inside its
 * own transaction (log position or output index, 0 by default), never a block-wide index.
 */
export const cryptoTransactions = pgTable(
  'crypto_transactions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    position: integer('position').notNull().default(0),
    address: text('address').notNull(),
    amount: numeric('amount').notNull(),
    confirmations: integer('confirmations'),
    orderId: text('order_id'),
    /**
     * credited: completed the order; partial: recorded, order still short; late / unmatched: for
     * operators; awaiting: seen by a built-in watcher, its confirmations not reached yet; dropped: the
     * provider lost it before it was credited (a reorg, a replacement); review: a chain credit above
     * CHAIN_CREDIT_MAX_RATIO, held for an operator with `review_reason` (docs/decisions.md sections
     * 25 and 34).
     */
    outcome: text('outcome')
      .$type<'credited' | 'partial' | 'late' | 'unmatched' | 'ignored' | 'awaiting' | 'dropped' | 'review'>()
      .notNull(),
    /** Why a chain credit waits for an operator (outcome `review`), in words a person can read. */
    reviewReason: text('review_reason'),
    /** When the provider first no longer knew an awaiting transfer; it is re-checked until dropped. */
    vanishedAt: ts('vanished_at'),
    /** An awaiting transfer is not asked for again before this (backoff of a vanished one). */
    nextCheckAt: ts('next_check_at'),
    reportedBy: text('reported_by').notNull(),
    /** What moved: the chain's own coin or its USDT token; null when reported without it (legacy). */
    asset: text('asset').$type<'coin' | 'token'>(),
    /** The block the watcher saw it in (null: reported from outside, or not in a block yet). */
    blockHeight: bigint('block_height', { mode: 'number' }),
    blockHash: text('block_hash'),
    /**
     * The chain's time of the transaction, where the watcher reads it (TON): a transfer made before an
     * order was created never pays that order (docs/decisions.md section 34). Null: not known.
     */
    paidAt: ts('paid_at'),
    /** When a reorg removed a transfer that had already been credited: an alert, never a reversal. */
    reorgedAt: ts('reorged_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('crypto_tx_uq').on(t.network, t.txHash, t.position),
    index('crypto_tx_order_idx').on(t.orderId),
    index('crypto_tx_awaiting_idx').on(t.network).where(sql`${t.outcome} = 'awaiting'`),
    check(
      'crypto_transactions_outcome_ck',
      sql`${t.outcome} IN ('credited', 'partial', 'late', 'unmatched', 'ignored', 'awaiting', 'dropped', 'review')`,
    ),
    check(
      'crypto_transactions_amount_ck',
      sql`${t.amount} > 0 AND (${t.confirmations} IS NULL OR ${t.confirmations} >= 0)`,
    ),
  ],
);

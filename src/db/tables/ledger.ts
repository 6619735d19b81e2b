import { sql } from 'drizzle-orm';
import {
  bigserial,
  check,
  index,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { merchants } from './merchants.js';
import { orders } from './orders.js';

// Tables of the ledger module: only src/modules/ledger/ reads and writes them (docs/architecture.md).

/**
 * Double-entry ledger (docs/decisions.md section 6): every posting is a journal of entries that sum to
 * zero per currency. A merchant's balance is the sum of its `merchant:<id>` account entries.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    journalId: uuid('journal_id').notNull(),
    account: text('account').notNull(),
    merchantId: text('merchant_id'),
    currency: text('currency').notNull(),
    /** Signed: positive credits the account. */
    amount: numeric('amount').notNull(),
    kind: text('kind').notNull(),
    orderId: text('order_id'),
    memo: text('memo'),
    /**
     * Once-only key of the journal (`payin_credit:<order>`, `payout_debit:<order>`), unique per
     * account: the schema, not the callers' locks, keeps an order's money from moving twice
     * (docs/decisions.md section 35). Null for journals that may repeat (adjustments).
     */
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_entries_once_idx').on(t.idempotencyKey, t.account),
    index('ledger_account_idx').on(t.account, t.currency),
    index('ledger_order_idx').on(t.orderId),
    index('ledger_journal_idx').on(t.journalId),
    check('ledger_entries_amount_ck', sql`${t.amount} <> 0`),
  ],
);

/** Running balance per merchant and currency, kept with the ledger in the same transaction. */
export const balances = pgTable(
  'balances',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    currency: text('currency').notNull(),
    balance: numeric('balance').notNull().default('0'),
    reserved: numeric('reserved').notNull().default('0'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.currency] }),
    check('balances_reserved_ck', sql`${t.reserved} >= 0`),
  ],
);

/** Funds reserved by a payout until it succeeds (captured) or fails (released). */
export const holds = pgTable(
  'holds',
  {
    orderId: text('order_id')
      .primaryKey()
      .references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    currency: text('currency').notNull(),
    amount: numeric('amount').notNull(),
    status: text('status').$type<'active' | 'captured' | 'released'>().notNull(),
    createdAt: createdAt(),
    settledAt: ts('settled_at'),
  },
  (t) => [
    index('holds_merchant_idx').on(t.merchantId, t.status),
    check('holds_amount_ck', sql`${t.amount} > 0`),
    check('holds_status_ck', sql`${t.status} IN ('active', 'captured', 'released')`),
  ],
);

import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { holders } from './holders.js';

// Tables of the requisites module: only src/modules/requisites/ reads and writes them (docs/architecture.md).

export const requisites = pgTable(
  'requisites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').$type<'card' | 'phone' | 'qr' | 'account'>().notNull(),
    bank: text('bank').notNull(),
    /** Code of a known bank (`banks.code`) when `bank` names one; same-bank types need it. */
    bankCode: text('bank_code'),
    address: text('address').notNull(),
    holderName: text('holder_name').notNull(),
    /** The holder behind it (docs/decisions.md "Holders' money"); written through `holders`. */
    holderId: uuid('holder_id').references(() => holders.id),
    currency: text('currency').notNull(),
    minAmount: numeric('min_amount'),
    maxAmount: numeric('max_amount'),
    dailyLimit: numeric('daily_limit'),
    maxActiveOrders: integer('max_active_orders'),
    emv: text('emv'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    /**
     * Card or account endings its bank's messages show besides the card's own last four digits
     * (docs/decisions.md section 24), added by operators.
     */
    masks: jsonb('masks').$type<string[]>().notNull().default([]),
    /**
     * Why it takes no new orders for now (docs/decisions.md section 24): `block` (its bank blocked it; an operator
     * resumes), `stale` or `liveness` (its device went quiet; resumes when the device is back),
     * `holder` (its holder is over their exposure limit or suspended; resumes when they are not:
     * docs/decisions.md "Holders' money"), `own` (the holder paused it on their page and resumes it
     * there: docs/decisions.md "The holder's own page"; any other pause overrides it).
     */
    pausedReason: text('paused_reason').$type<'block' | 'stale' | 'liveness' | 'holder' | 'own'>(),
    pausedAt: ts('paused_at'),
    /**
     * The `orders.seq` of its latest order (0: never assigned): its place in the least recently
     * assigned rule (docs/decisions.md section 18), set by the order that takes it, in the order's
     * statement or transaction.
     */
    lastOrderSeq: bigint('last_order_seq', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  // The pick reads one of these from its head: the ready requisites of a currency and kind (and
  // bank, for a same-bank type), least recently assigned first (docs/decisions.md section 18).
  (t) => [
    index('requisites_lru_idx')
      .on(t.currency, t.kind, t.lastOrderSeq, t.id)
      .where(sql`enabled AND paused_reason IS NULL`),
    index('requisites_bank_lru_idx')
      .on(t.currency, t.kind, t.bankCode, t.lastOrderSeq, t.id)
      .where(sql`enabled AND paused_reason IS NULL`),
    // A holder's requisites, for their pending orders in the claim's limit (docs/decisions.md
    // "Holders' limits in the claim").
    index('requisites_holder_idx').on(t.holderId).where(sql`holder_id IS NOT NULL`),
    check(
      'requisites_paused_ck',
      sql`${t.pausedReason} IS NULL OR ${t.pausedReason} IN ('block', 'stale', 'liveness', 'holder', 'own')`,
    ),
    check('requisites_kind_ck', sql`${t.kind} IN ('card', 'phone', 'qr', 'account')`),
    check(
      'requisites_limits_ck',
      sql`(${t.minAmount} IS NULL OR ${t.minAmount} >= 0) AND (${t.maxAmount} IS NULL OR ${t.maxAmount} >= 0) AND (${t.dailyLimit} IS NULL OR ${t.dailyLimit} >= 0) AND (${t.maxActiveOrders} IS NULL OR ${t.maxActiveOrders} > 0)`,
    ),
  ],
);

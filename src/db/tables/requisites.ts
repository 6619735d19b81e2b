import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

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
    currency: text('currency').notNull(),
    minAmount: numeric('min_amount'),
    maxAmount: numeric('max_amount'),
    dailyLimit: numeric('daily_limit'),
    maxActiveOrders: integer('max_active_orders'),
    emv: text('emv'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  // The pick's equalities (docs/decisions.md section 7); its LRU order comes from the orders.
  (t) => [
    index('requisites_pick_idx').on(t.currency, t.kind),
    check('requisites_kind_ck', sql`${t.kind} IN ('card', 'phone', 'qr', 'account')`),
    check(
      'requisites_limits_ck',
      sql`(${t.minAmount} IS NULL OR ${t.minAmount} >= 0) AND (${t.maxAmount} IS NULL OR ${t.maxAmount} >= 0) AND (${t.dailyLimit} IS NULL OR ${t.dailyLimit} >= 0) AND (${t.maxActiveOrders} IS NULL OR ${t.maxActiveOrders} > 0)`,
    ),
  ],
);

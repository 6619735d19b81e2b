import { sql } from 'drizzle-orm';
import { check, index, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { requisites } from './requisites.js';

// Tables of the pool module: only src/modules/pool/ reads and writes them (docs/architecture.md).

/** Pre-reserved requisites with a fixed amount that merchants pick (`GET /merchant/pool/requisites`). */
export const requisiteOffers = pgTable(
  'requisite_offers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    requisiteId: uuid('requisite_id')
      .notNull()
      .references(() => requisites.id),
    amount: numeric('amount').notNull(),
    type: text('type').notNull(),
    status: text('status').$type<'open' | 'taken' | 'withdrawn'>().notNull().default('open'),
    expiresAt: ts('expires_at').notNull(),
    orderId: text('order_id'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('requisite_offers_open_idx').on(t.expiresAt).where(sql`status = 'open'`),
    index('requisite_offers_requisite_idx').on(t.requisiteId),
    check('requisite_offers_amount_ck', sql`${t.amount} > 0`),
    check('requisite_offers_status_ck', sql`${t.status} IN ('open', 'taken', 'withdrawn')`),
  ],
);

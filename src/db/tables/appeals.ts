import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { orders } from './orders.js';

// Tables of the appeals module: only src/rails/appeals/ reads and writes them (docs/architecture.md).

/**
 * Late-payment claims (docs/decisions.md section 27): a payer or the merchant
 * says a failed PAYIN was paid and gives a receipt (`receiptId`, kept by the receipts module). An
 * appeal is `open` until an operator accepts it (the order succeeds through the lifecycle) or
 * rejects it with a reason; operators see open ones by `deadlineAt`. One open appeal per order.
 */
export const appeals = pgTable(
  'appeals',
  {
    id: uuid('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    receiptId: uuid('receipt_id').notNull(),
    openedBy: text('opened_by').$type<'payer' | 'merchant'>().notNull(),
    status: text('status').$type<'open' | 'accepted' | 'rejected'>().notNull(),
    deadlineAt: ts('deadline_at').notNull(),
    /** The operator's reason: required to reject, optional to accept. */
    reason: text('reason'),
    resolvedBy: text('resolved_by'),
    resolvedAt: ts('resolved_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('appeals_one_open_uq').on(t.orderId).where(sql`status = 'open'`),
    index('appeals_status_deadline_idx').on(t.status, t.deadlineAt),
    index('appeals_merchant_idx').on(t.merchantId, t.createdAt),
    index('appeals_order_idx').on(t.orderId, t.createdAt),
    check('appeals_status_ck', sql`${t.status} IN ('open', 'accepted', 'rejected')`),
    check('appeals_opened_by_ck', sql`${t.openedBy} IN ('payer', 'merchant')`),
  ],
);

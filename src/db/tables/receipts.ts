import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { orders } from './orders.js';

// Tables of the receipts module: only src/rails/receipts/ reads and writes them (docs/architecture.md).

/**
 * Payment receipts attached to orders (docs/api.md "POST /merchant/receipt/upload"; docs/decisions.md
 * section 9). The file lives in the receipt storage under `storageKey` (named from the id, never from
 * the upload). A receipt is `under_review` until support accepts or rejects it.
 */
export const receipts = pgTable(
  'receipts',
  {
    id: uuid('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    source: text('source').$type<'file' | 'url' | 'form' | 'payout_proof'>().notNull(),
    sourceUrl: text('source_url'),
    /** Type sniffed from the content: application/pdf, image/jpeg or image/png. */
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    storageKey: text('storage_key').notNull(),
    status: text('status').$type<'under_review' | 'accepted' | 'rejected'>().notNull(),
    reason: text('reason'),
    reviewedBy: text('reviewed_by'),
    reviewedAt: ts('reviewed_at'),
    /** A sandbox order's receipt (docs/decisions.md section 29): judged by the sandbox, never in the operators' queue. */
    test: boolean('test').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('receipts_order_idx').on(t.orderId, t.createdAt),
    index('receipts_status_idx').on(t.status, t.createdAt),
    uniqueIndex('receipts_one_under_review_uq').on(t.orderId).where(sql`status = 'under_review'`),
    check('receipts_status_ck', sql`${t.status} IN ('under_review', 'accepted', 'rejected')`),
    check('receipts_source_ck', sql`${t.source} IN ('file', 'url', 'form', 'payout_proof')`),
    check('receipts_size_ck', sql`${t.sizeBytes} >= 0`),
  ],
);

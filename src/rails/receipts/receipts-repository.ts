import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { receipts } from '../../db/tables/receipts.js';
import { AppError } from '../../lib/errors.js';
import { orderCommands } from '../../modules/orders/index.js';

export type ReceiptRow = typeof receipts.$inferSelect;
export type ReceiptSource = ReceiptRow['source'];

/** A receipt file checked and kept in the storage, waiting for its row. */
export interface StoredFile {
  id: string;
  contentType: string;
  size: number;
}

function uniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

/** The status of an order's latest receipt, or null: what the order shows as `receiptStatus`. */
async function latestStatus(ex: Executor, orderId: string): Promise<ReceiptRow['status'] | null> {
  const rows = await ex
    .select({ status: receipts.status })
    .from(receipts)
    .where(eq(receipts.orderId, orderId))
    .orderBy(desc(receipts.createdAt))
    .limit(1);
  return rows[0]?.status ?? null;
}

/** Keeps the order's `receiptStatus` (the orders module's column) equal to its latest receipt's. */
export async function syncOrderReceiptStatus(ex: Executor, orderId: string, now: Date): Promise<void> {
  await orderCommands.setReceiptStatus(ex, orderId, await latestStatus(ex, orderId), now);
}

/**
 * The row of a stored receipt file, in the caller's transaction, with the order's receipt status:
 * `under_review`, or `accepted` for a payout's proof. A second one under review for the order is
 * MODERATION_IN_PROGRESS (a partial unique index, so concurrent uploads cannot both pass).
 */
export async function insertReceipt(
  ex: Executor,
  input: {
    order: { id: string; merchantId: string; test?: boolean };
    file: StoredFile;
    source: ReceiptSource;
    sourceUrl: string | null;
    now: Date;
  },
): Promise<ReceiptRow> {
  let row: ReceiptRow | undefined;
  try {
    row = (
      await ex
        .insert(receipts)
        .values({
          id: input.file.id,
          orderId: input.order.id,
          merchantId: input.order.merchantId,
          source: input.source,
          sourceUrl: input.sourceUrl,
          contentType: input.file.contentType,
          sizeBytes: input.file.size,
          storageKey: input.file.id,
          status: input.source === 'payout_proof' ? 'accepted' : 'under_review',
          test: input.order.test === true,
          createdAt: input.now,
        })
        .returning()
    )[0];
  } catch (err) {
    if (uniqueViolation(err)) throw new AppError('MODERATION_IN_PROGRESS');
    throw err;
  }
  if (!row) throw new Error('insert returned no row');
  await syncOrderReceiptStatus(ex, input.order.id, input.now);
  return row;
}

/** Whether a receipt of the order is under review (a new upload then waits: 409). */
export async function underReview(ex: Executor, orderId: string): Promise<boolean> {
  const open = await ex
    .select({ id: receipts.id })
    .from(receipts)
    .where(and(eq(receipts.orderId, orderId), eq(receipts.status, 'under_review')))
    .limit(1);
  return open.length > 0;
}

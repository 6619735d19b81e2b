/**
 * The writes other modules make on an order besides its status (docs/architecture.md "What orders
 * offers"): each a named, narrow command, exported as `orderCommands` from the orders index. The
 * status moves only through the lifecycle (order-lifecycle.ts); no other module writes the orders
 * table (scripts/check-order-writes.mjs).
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { type NewOrderDraft, newOrderRow, type PaymentDetailsColumns } from './new-order.js';
import type { OrderRow } from './order-view.js';
import { insertOrder, type OrderPatch } from './orders-repository.js';

export { assertNewExternalId, recordReceivedAmount, setReceiptStatus } from './orders-repository.js';

/**
 * Builds a new pending order of a mode that brings its own payment details (a crypto PAYIN's
 * deposit address, a payout's account) and inserts it: `newOrderRow` of `order`, then those
 * `details`. Throws DuplicateOrderError for a taken `order_id` (createOrder answers
 * ORDER_ALREADY_EXISTS).
 */
export async function insertNew(
  ex: Executor,
  order: Parameters<typeof newOrderRow>[0],
  details: PaymentDetailsColumns,
): Promise<OrderRow> {
  const draft: NewOrderDraft = newOrderRow(order);
  return insertOrder(ex, { ...draft, ...details });
}

/** A crypto order's quote: the coin amount and rate, the fee and what the merchant gets (text). */
export type CryptoQuoteColumns = Pick<
  OrderPatch,
  'cryptoAmount' | 'cryptoRate' | 'fee' | 'amountAfterFee' | 'usdtAmount' | 'usdtAmountAfterFee'
>;

/**
 * Fills the quote of a pending crypto order that has none yet (its rate was missing at creation);
 * answers whether it did. The only write of an order's fee outside the lifecycle, and only once.
 */
export async function setCryptoQuote(
  ex: Executor,
  id: string,
  quote: CryptoQuoteColumns,
  now: Date,
): Promise<boolean> {
  const rows = await ex
    .update(orders)
    .set({ ...quote, updatedAt: now })
    .where(and(eq(orders.id, id), eq(orders.status, 'pending'), isNull(orders.cryptoRate)))
    .returning({ id: orders.id });
  return rows.length > 0;
}

/** An operator takes a pending payout from the queue; answers whether it was one. */
export async function assignPayout(ex: Executor, id: string, operator: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(orders)
    .set({ assignedTo: operator, updatedAt: now })
    .where(and(eq(orders.id, id), eq(orders.method, 'payout'), eq(orders.status, 'pending')))
    .returning({ id: orders.id });
  return rows.length > 0;
}

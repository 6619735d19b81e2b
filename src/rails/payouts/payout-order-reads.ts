/**
 * What the payouts rail reads of the orders table (docs/architecture.md "What orders offers"): the
 * orders module's read-only export `ordersForReading`, in selects only; a payout is taken with
 * `orderCommands.assignPayout` and moves through the lifecycle.
 */
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { type OrderRow, ordersForReading as orders } from '../../modules/orders/index.js';

/** Which payouts the operators' queue shows: live or sandbox ones, of one status or every status. */
export interface PayoutQueueFilter {
  method: 'payout';
  test: boolean;
  status?: OrderRow['status'];
}

/** Payouts of the queue, oldest first while pending (operators work them in order), else newest first. */
export async function listQueue(ex: Executor, filter: PayoutQueueFilter, limit: number): Promise<OrderRow[]> {
  return ex
    .select()
    .from(orders)
    .where(
      and(
        filter.status ? eq(orders.status, filter.status) : undefined,
        eq(orders.method, filter.method),
        eq(orders.test, filter.test),
      ),
    )
    .orderBy(filter.status === 'pending' ? asc(orders.createdAt) : desc(orders.createdAt))
    .limit(limit);
}

/** Payouts by their ids (live ones only; a PAYIN id is never among them). */
export async function ordersByIds(ex: Executor, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return [];
  return ex
    .select()
    .from(orders)
    .where(and(inArray(orders.id, ids), eq(orders.method, 'payout'), eq(orders.test, false)));
}

/**
 * What the holder needs to send a payout (docs/decisions.md "Payouts on the holder's page"): the
 * amount they send (decimal string, the order's currency), the recipient's details as the order
 * holds them, and the order's deadline when it has one.
 */
export function holderPayoutView(o: OrderRow) {
  return {
    id: o.id,
    status: o.status,
    type: o.type,
    amount: o.payableAmount,
    currency: o.currency,
    holder_account: o.pdAddress,
    holder_name: o.pdHolderName,
    bank: o.pdBank,
    expires_at: o.expiresAt?.toISOString() ?? null,
    created_at: o.createdAt.toISOString(),
    finished_at: o.finishedAt?.toISOString() ?? null,
  };
}

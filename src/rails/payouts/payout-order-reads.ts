/**
 * What the payouts rail reads of the orders table (docs/architecture.md "What orders offers"): the
 * orders module's read-only export `ordersForReading`, in selects only; a payout is taken with
 * `orderCommands.assignPayout` and moves through the lifecycle.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
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

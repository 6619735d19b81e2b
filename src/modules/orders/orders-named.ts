/**
 * Orders as operators name them: by our internal id or by the merchant's `order_id` (external id),
 * for every admin endpoint that names an order (docs/api.md "Admin API").
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { AppError } from '../../lib/errors.js';
import type { OrderRow } from './order-view.js';
import { lockOrder } from './orders-repository.js';

/**
 * The internal id of the order an operator names by our id or by the merchant's `order_id`:
 * undefined when none; VALIDATION_ERROR naming `order_id` when several merchants' orders share it.
 */
export async function orderIdNamed(ex: Executor, id: string): Promise<string | undefined> {
  const own = await ex.select({ id: orders.id }).from(orders).where(eq(orders.id, id)).limit(1);
  if (own[0]) return own[0].id;
  const named = await ex.select({ id: orders.id }).from(orders).where(eq(orders.externalId, id)).limit(2);
  if (named.length > 1)
    throw new AppError('VALIDATION_ERROR', [
      { field: 'order_id', problem: 'names orders of several merchants; use the internal id' },
    ]);
  return named[0]?.id;
}

/**
 * Locks the order an operator names by its internal id or by the merchant's `order_id` (external
 * id). Undefined when none; an external id that several merchants' orders share answers the one
 * `among` keeps (e.g. those on a message's requisites), else throws VALIDATION_ERROR.
 */
export async function lockOrderByAnyId(
  ex: Executor,
  id: string,
  among: (order: OrderRow) => boolean = () => true,
): Promise<OrderRow | undefined> {
  const own = await lockOrder(ex, id);
  if (own) return own;
  const named = await ex.select().from(orders).where(eq(orders.externalId, id)).limit(20).for('update');
  const kept = named.length > 1 ? named.filter(among) : named;
  if (kept.length > 1)
    throw new AppError('VALIDATION_ERROR', [
      { field: 'order_id', problem: 'names orders of several merchants; use the internal id' },
    ]);
  return kept[0];
}

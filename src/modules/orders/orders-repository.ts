import { and, between, count, desc, eq, gt, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orderEvents, orders } from '../../db/schema.js';
import type { OrderRow } from './order-view.js';

export type NewOrderRow = typeof orders.$inferInsert;

/** Thrown when (merchant_id, external_id) is taken. */
export class DuplicateOrderError extends Error {}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

export async function insertOrder(ex: Executor, row: NewOrderRow): Promise<OrderRow> {
  try {
    const rows = await ex.insert(orders).values(row).returning();
    const inserted = rows[0];
    if (!inserted) throw new Error('insert returned no row');
    return inserted;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateOrderError();
    throw err;
  }
}

/**
 * Inserts a new pending order and its first timeline event ("created by <actor>"): every creation
 * path (fiat, crypto, payout) goes through here. Throws DuplicateOrderError for a taken order_id.
 */
export async function insertPendingOrder(ex: Executor, row: NewOrderRow, actor: string): Promise<OrderRow> {
  const order = await insertOrder(ex, row);
  await insertOrderEvent(ex, { orderId: order.id, fromStatus: null, toStatus: 'pending', actor });
  return order;
}

export async function externalIdTaken(
  ex: Executor,
  merchantId: string,
  externalId: string,
): Promise<boolean> {
  const rows = await ex
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.merchantId, merchantId), eq(orders.externalId, externalId)))
    .limit(1);
  return rows.length > 0;
}

export async function findOrderById(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1))[0];
}

export async function findOrderForUpdate(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1).for('update'))[0];
}

export async function findOrderByExternalId(ex: Executor, merchantId: string, externalId: string) {
  return (
    await ex
      .select()
      .from(orders)
      .where(and(eq(orders.merchantId, merchantId), eq(orders.externalId, externalId)))
      .limit(1)
  )[0];
}

/**
 * Payable amounts of active (pending, not yet past the deadline) RUB PAYIN orders within [low, high]:
 * the values amount disambiguation must avoid (decisions.md section 7).
 */
export async function takenRubAmounts(ex: Executor, low: number, high: number, now: Date): Promise<string[]> {
  const rows = await ex
    .select({ amount: orders.payableAmount })
    .from(orders)
    .where(
      and(
        eq(orders.status, 'pending'),
        eq(orders.method, 'fiat'),
        eq(orders.currency, 'RUB'),
        between(orders.payableAmount, String(low), String(high)),
        gt(orders.expiresAt, now),
      ),
    );
  return rows.map((r) => r.amount);
}

/** Advisory lock key that serialises choices of RUB PAYIN payable amounts. */
const RUB_AMOUNTS_LOCK = 727_401_002;

/**
 * Takes the transaction-scoped lock over RUB PAYIN payable amounts: exclusive for an order that
 * picks a shifted amount, shared for one that keeps its amount (those may run side by side, but
 * never while a shifting order is looking for a free value).
 */
export async function lockRubAmounts(ex: Executor, exclusive: boolean): Promise<void> {
  await ex.execute(
    exclusive
      ? sql`SELECT pg_advisory_xact_lock(${RUB_AMOUNTS_LOCK})`
      : sql`SELECT pg_advisory_xact_lock_shared(${RUB_AMOUNTS_LOCK})`,
  );
}

export async function updateOrderStatus(
  ex: Executor,
  id: string,
  patch: Partial<NewOrderRow>,
): Promise<OrderRow | undefined> {
  return (
    await ex
      .update(orders)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(orders.id, id))
      .returning()
  )[0];
}

export async function insertOrderEvent(
  ex: Executor,
  event: {
    orderId: string;
    fromStatus: string | null;
    toStatus: string;
    actor: string;
    reason?: string | null;
  },
): Promise<void> {
  await ex.insert(orderEvents).values({ ...event, reason: event.reason ?? null });
}

export async function listOrderEvents(ex: Executor, orderId: string) {
  return ex.select().from(orderEvents).where(eq(orderEvents.orderId, orderId)).orderBy(orderEvents.id);
}

/**
 * Moves pending PAYIN orders whose deadline passed to `error` (decisions.md section 5: expiry frees
 * the amount and the requisite). Claims at most `limit` rows with SKIP LOCKED so that several
 * processes can sweep at once. Returns the expired ids.
 */
export async function expireDueOrders(
  ex: Executor,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; requisiteId: string | null; type: string; direction: 'PAYIN' | 'PAYOUT' }>> {
  const due = ex
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.status, 'pending'), eq(orders.direction, 'PAYIN'), lt(orders.expiresAt, now)))
    .orderBy(orders.expiresAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  const rows = await ex
    .update(orders)
    .set({ status: 'error', statusReason: 'expired', finishedAt: now, updatedAt: now })
    .where(sql`${orders.id} IN ${due}`)
    .returning({
      id: orders.id,
      requisiteId: orders.requisiteId,
      type: orders.type,
      direction: orders.direction,
    });
  return rows;
}

export interface OrderFilter {
  merchantId?: string;
  status?: string;
  direction?: string;
  type?: string;
  from?: Date;
  to?: Date;
}

function filterSql(f: OrderFilter): SQL | undefined {
  return and(
    f.merchantId ? eq(orders.merchantId, f.merchantId) : undefined,
    f.status ? eq(orders.status, f.status as OrderRow['status']) : undefined,
    f.direction ? eq(orders.direction, f.direction as OrderRow['direction']) : undefined,
    f.type ? eq(orders.type, f.type) : undefined,
    f.from ? gte(orders.createdAt, f.from) : undefined,
    f.to ? lt(orders.createdAt, f.to) : undefined,
  );
}

/** A page of orders, newest first, and the total matching. */
export async function listOrders(ex: Executor, filter: OrderFilter, page: number, size: number) {
  const where = filterSql(filter);
  const [rows, totals] = await Promise.all([
    ex
      .select()
      .from(orders)
      .where(where)
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(size)
      .offset((page - 1) * size),
    ex.select({ n: count() }).from(orders).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

import { and, asc, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orderEvents, orders } from '../../db/tables/orders.js';
import type { OrderRow } from './order-view.js';

/** A new order row as the pure builders make it (new-order.ts). */
export type NewOrderRow = typeof orders.$inferInsert;

/**
 * The columns of an order other modules may change, never the status (only the lifecycle moves it):
 * what a crypto order received, its quote once a rate exists, the operator who took a payout, the
 * status of its latest receipt.
 */
export type OrderPatch = Partial<
  Pick<
    NewOrderRow,
    | 'receivedAmount'
    | 'cryptoAmount'
    | 'cryptoRate'
    | 'fee'
    | 'amountAfterFee'
    | 'usdtAmount'
    | 'usdtAmountAfterFee'
    | 'assignedTo'
    | 'receiptStatus'
  >
>;

/** Thrown when (merchant_id, external_id) is taken. */
export class DuplicateOrderError extends Error {}

/** Whether a database error (or one it wraps) is a unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

/**
 * Inserts a new pending order: every creation path (fiat, crypto, payout) ends here or in the
 * one-statement claim (requisite-claim.ts). The timeline's "created" entry is the order itself.
 * Throws DuplicateOrderError for a taken order_id.
 */
export async function insertOrder(ex: Executor, row: NewOrderRow): Promise<OrderRow> {
  try {
    const [inserted] = await ex.insert(orders).values(row).returning();
    if (!inserted) throw new Error('insert returned no row');
    return inserted;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateOrderError();
    throw err;
  }
}

/**
 * Refuses an order id the merchant already used in the mode of `merchant.test` (docs/decisions.md
 * section 1), before a mode spends anything on the order (a deposit address, a hold, the amounts
 * lock). Throws DuplicateOrderError, which `createOrder` answers as ORDER_ALREADY_EXISTS for every
 * mode; the unique index behind `insertOrder` decides a race.
 */
export async function assertNewExternalId(
  ex: Executor,
  merchant: { id: string; test?: boolean | undefined },
  externalId: string,
): Promise<void> {
  const rows = await ex
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.merchantId, merchant.id),
        eq(orders.externalId, externalId),
        eq(orders.test, merchant.test === true),
      ),
    )
    .limit(1);
  if (rows.length > 0) throw new DuplicateOrderError();
}

export async function findOrderById(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1))[0];
}

/** The order, locked for the rest of the transaction (FOR UPDATE): the step before any change. */
export async function lockOrder(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1).for('update'))[0];
}

/**
 * What a crypto order has received so far (the coin's units as decimal text), written while a
 * payment is partial: the credit itself, with the credited figures, is the lifecycle's
 * (`succeed`). Never the status; answers the order.
 */
export async function recordReceivedAmount(
  ex: Executor,
  id: string,
  receivedAmount: string,
  now: Date,
): Promise<OrderRow | undefined> {
  return (
    await ex.update(orders).set({ receivedAmount, updatedAt: now }).where(eq(orders.id, id)).returning()
  )[0];
}

/** The status of the order's latest receipt (receipts keeps it equal to its own rows). */
export async function setReceiptStatus(
  ex: Executor,
  id: string,
  receiptStatus: OrderRow['receiptStatus'],
  now: Date,
): Promise<void> {
  await ex.update(orders).set({ receiptStatus, updatedAt: now }).where(eq(orders.id, id));
}

/** The status columns of a transition; written only by order-lifecycle.ts. */
export type StatusChange = Pick<NewOrderRow, 'status' | 'statusReason' | 'finishedAt'> &
  Partial<Pick<NewOrderRow, 'creditedCurrency' | 'creditedAmount'>> &
  OrderPatch;

/**
 * Writes a transition of one order (order-lifecycle.ts only) as a compare-and-set: the row changes
 * only while its status is still `from` (docs/decisions.md section 35). Answers the
 * order as written, or undefined when it was not in `from` any more (the caller's ORDER_STATE_CONFLICT).
 * `now` is the service clock's time of the move (updated_at).
 */
export async function writeStatus(
  ex: Executor,
  id: string,
  from: OrderRow['status'],
  change: StatusChange,
  now: Date,
): Promise<OrderRow | undefined> {
  return (
    await ex
      .update(orders)
      .set({ ...change, updatedAt: now })
      .where(and(eq(orders.id, id), eq(orders.status, from)))
      .returning()
  )[0];
}

/**
 * Moves pending PAYIN orders whose deadline passed to `error` (docs/decisions.md section 5: expiry frees
 * the amount and the requisite), at most `limit`, claimed with SKIP LOCKED so that several
 * processes sweep at once (order-lifecycle.ts only). Returns what was expired.
 */
export async function writeExpired(ex: Executor, now: Date, limit: number): Promise<OrderRow[]> {
  const due = ex
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.status, 'pending'), eq(orders.direction, 'PAYIN'), lt(orders.expiresAt, now)))
    .orderBy(orders.expiresAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return ex
    .update(orders)
    .set({ status: 'error', statusReason: 'expired', finishedAt: now, updatedAt: now })
    .where(and(sql`${orders.id} IN ${due}`, eq(orders.status, 'pending')))
    .returning();
}

export interface OrderEventInput {
  orderId: string;
  fromStatus: string | null;
  toStatus: string;
  actor: string;
  reason?: string | null;
}

/** Appends transitions to the timeline (order-lifecycle.ts only). */
export async function insertOrderEvents(ex: Executor, events: OrderEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await ex.insert(orderEvents).values(events.map((e) => ({ ...e, reason: e.reason ?? null })));
}

/**
 * The timeline of an order: its creation (the order row itself: created by its merchant) and every
 * transition after it, oldest first.
 */
export async function orderTimeline(ex: Executor, order: OrderRow) {
  const rows = await ex
    .select()
    .from(orderEvents)
    .where(eq(orderEvents.orderId, order.id))
    .orderBy(asc(orderEvents.id));
  // Orders created before the timeline was derived also stored their creation: shown once.
  const transitions = rows.filter((e) => e.fromStatus !== null);
  return [
    {
      from: null,
      to: 'pending',
      actor: `merchant:${order.merchantId}`,
      reason: null as string | null,
      at: order.createdAt.toISOString(),
    },
    ...transitions.map((e) => ({
      from: e.fromStatus,
      to: e.toStatus,
      actor: e.actor,
      reason: e.reason,
      at: e.createdAt.toISOString(),
    })),
  ];
}

/** Every column of an order, for selects that add their own (getTableColumns of the table). */
export const orderColumns = getTableColumns(orders);

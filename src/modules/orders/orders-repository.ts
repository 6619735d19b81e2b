import { and, asc, count, desc, eq, getTableColumns, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/database.js';
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

/** Whether the merchant has an order with this external id in the mode of `merchant.test`. */
export async function externalIdTaken(
  ex: Executor,
  merchant: { id: string; test?: boolean | undefined },
  externalId: string,
): Promise<boolean> {
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
  return rows.length > 0;
}

export async function findOrderById(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1))[0];
}

/** The order, locked for the rest of the transaction (FOR UPDATE): the step before any change. */
export async function lockOrder(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1).for('update'))[0];
}

/**
 * The merchant read path's lookups, each one round trip and a named prepared statement (parsed and
 * planned once per connection): an order by internal id, or by a merchant's external id. Bound to
 * `db`, not usable inside a transaction.
 */
export function orderReads(db: Db) {
  const byId = db
    .select()
    .from(orders)
    .where(eq(orders.id, sql.placeholder('id')))
    .limit(1)
    .prepare('order_by_id');
  const byExternalId = db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.merchantId, sql.placeholder('merchantId')),
        eq(orders.externalId, sql.placeholder('externalId')),
        eq(orders.test, sql.placeholder('test')),
      ),
    )
    .limit(1)
    .prepare('order_by_external_id');
  return {
    byId: async (id: string): Promise<OrderRow | undefined> => (await byId.execute({ id }))[0],
    /** The merchant's order of this external id in one mode (sandbox or live). */
    byExternalId: async (
      merchantId: string,
      externalId: string,
      test: boolean,
    ): Promise<OrderRow | undefined> => (await byExternalId.execute({ merchantId, externalId, test }))[0],
  };
}

/**
 * Changes the columns of `OrderPatch` (never the status); answers the order, or undefined when
 * `onlyPending` is set and the order is no longer pending.
 */
export async function patchOrder(
  ex: Executor,
  id: string,
  patch: OrderPatch,
  options: { onlyPending?: boolean; now?: Date } = {},
): Promise<OrderRow | undefined> {
  const where = options.onlyPending
    ? and(eq(orders.id, id), eq(orders.status, 'pending'))
    : eq(orders.id, id);
  return (
    await ex
      .update(orders)
      .set({ ...patch, updatedAt: options.now ?? new Date() })
      .where(where)
      .returning()
  )[0];
}

/** The status columns of a transition; written only by order-lifecycle.ts. */
export type StatusChange = Pick<NewOrderRow, 'status' | 'statusReason' | 'finishedAt'> &
  Partial<Pick<NewOrderRow, 'creditedCurrency' | 'creditedAmount'>> &
  OrderPatch;

/** Writes a transition of one order (order-lifecycle.ts only). */
export async function writeStatus(
  ex: Executor,
  id: string,
  change: StatusChange,
): Promise<OrderRow | undefined> {
  return (
    await ex
      .update(orders)
      .set({ ...change, updatedAt: new Date() })
      .where(eq(orders.id, id))
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
    .where(sql`${orders.id} IN ${due}`)
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

/** Filters of the order lists. */
export interface OrderFilter {
  merchantId?: string;
  /** The merchant's `order_id` (external id). */
  externalId?: string;
  status?: string;
  direction?: string;
  type?: string;
  method?: 'fiat' | 'crypto' | 'payout';
  from?: Date;
  to?: Date;
  /**
   * One box that finds an order by its internal id, the merchant's order id, the client id or
   * (digits) the amount asked or to pay (issue 21: the portal's search).
   */
  search?: string;
  /**
   * Orders the search also finds through other modules (a chain transfer's tx hash, a bank
   * message's text: the operators' search, issue 23 item 2).
   */
  alsoIds?: string[];
  /** The list's order: newest first (default), oldest first, or by amount. */
  sort?: 'created_desc' | 'created_asc' | 'amount_desc' | 'amount_asc';
  /** Only sandbox (true) or only live (false) orders; both when undefined (issue 21 section 2). */
  test?: boolean;
}

function searchSql(text: string | undefined, alsoIds: readonly string[] = []): SQL | undefined {
  const q = text?.trim();
  if (!q) return undefined;
  const amount = /^\d{1,12}(\.\d{1,8})?$/.test(q) ? q : undefined;
  // A card or phone typed as shown ("2200 1234 ...", "+7 (900) 123-45-67") is stored as digits.
  const digits = q.replace(/[\s()+-]/g, '');
  return or(
    eq(orders.id, q),
    eq(orders.externalId, q),
    eq(orders.clientId, q),
    // The requisite or deposit address the payer was given (a card, phone or wallet address).
    eq(orders.pdAddress, /^\d{10,19}$/.test(digits) ? digits : q),
    alsoIds.length > 0 ? inArray(orders.id, [...alsoIds]) : undefined,
    amount ? eq(orders.amount, amount) : undefined,
    amount ? eq(orders.payableAmount, amount) : undefined,
  );
}

function filterSql(f: OrderFilter): SQL | undefined {
  return and(
    f.merchantId ? eq(orders.merchantId, f.merchantId) : undefined,
    f.externalId ? eq(orders.externalId, f.externalId) : undefined,
    f.status ? eq(orders.status, f.status as OrderRow['status']) : undefined,
    f.direction ? eq(orders.direction, f.direction as OrderRow['direction']) : undefined,
    f.type ? eq(orders.type, f.type) : undefined,
    f.method ? eq(orders.method, f.method) : undefined,
    f.from ? gte(orders.createdAt, f.from) : undefined,
    f.to ? lt(orders.createdAt, f.to) : undefined,
    searchSql(f.search, f.alsoIds),
    f.test === undefined ? undefined : eq(orders.test, f.test),
  );
}

/**
 * Every order of a filter, newest first, read in pages of `pageSize` by (created_at, id) so that
 * at most one page is held at a time (the streamed CSV exports of issue 21).
 */
export async function* streamOrders(
  ex: Executor,
  filter: OrderFilter,
  pageSize = 500,
): AsyncGenerator<OrderRow> {
  let cursor: { at: Date; id: string } | undefined;
  for (;;) {
    const rows = await ex
      .select()
      .from(orders)
      .where(
        and(
          filterSql(filter),
          cursor
            ? or(
                lt(orders.createdAt, cursor.at),
                and(eq(orders.createdAt, cursor.at), lt(orders.id, cursor.id)),
              )
            : undefined,
        ),
      )
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(pageSize);
    yield* rows;
    const last = rows[rows.length - 1];
    if (!last || rows.length < pageSize) return;
    cursor = { at: last.createdAt, id: last.id };
  }
}

/** The ORDER BY of a list's sort, the id breaking ties so that pages never overlap. */
function sortOf(sort: OrderFilter['sort']) {
  switch (sort) {
    case 'created_asc':
      return [asc(orders.createdAt), asc(orders.id)];
    case 'amount_desc':
      return [desc(orders.amount), desc(orders.id)];
    case 'amount_asc':
      return [asc(orders.amount), asc(orders.id)];
    default:
      return [desc(orders.createdAt), desc(orders.id)];
  }
}

/** A page of orders in the filter's sort (newest first by default), and the total matching. */
export async function listOrders(ex: Executor, filter: OrderFilter, page: number, size: number) {
  const where = filterSql(filter);
  const [rows, totals] = await Promise.all([
    ex
      .select()
      .from(orders)
      .where(where)
      .orderBy(...sortOf(filter.sort))
      .limit(size)
      .offset((page - 1) * size),
    ex.select({ n: count() }).from(orders).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/**
 * Who moved each of these orders to `error` (the actor of its latest move there: `system` for an
 * expiry, `operator:<name>`, `sandbox`...), by order id; orders never ended in error are absent.
 */
export async function endedBy(ex: Executor, orderIds: string[]): Promise<Map<string, string>> {
  if (orderIds.length === 0) return new Map();
  const rows = await ex
    .select({ orderId: orderEvents.orderId, actor: orderEvents.actor })
    .from(orderEvents)
    .where(and(inArray(orderEvents.orderId, orderIds), eq(orderEvents.toStatus, 'error')))
    .orderBy(asc(orderEvents.id));
  return new Map(rows.map((r) => [r.orderId, r.actor]));
}

/** Orders of a queue, oldest first while pending (operators work them in order), else newest first. */
export async function listQueue(ex: Executor, filter: OrderFilter, limit: number) {
  return ex
    .select()
    .from(orders)
    .where(filterSql(filter))
    .orderBy(filter.status === 'pending' ? asc(orders.createdAt) : desc(orders.createdAt))
    .limit(limit);
}

/** Every column of an order, for selects that add their own (getTableColumns of the table). */
export const orderColumns = getTableColumns(orders);

import { and, count, desc, eq, getTableColumns, gte, lt, type SQL, sql } from 'drizzle-orm';
import { type Db, type Executor, rowsOf } from '../../db/database.js';
import { orderEvents, orders, receipts } from '../../db/schema.js';
import { encodedValues, insertSelectTemplate, preparedStatement, typedRow } from '../../db/statements.js';
import { claimFreeRequisiteCtes, type PickInput, pickValues } from '../requisites/requisites-repository.js';
import type { OrderRow } from './order-view.js';

export type NewOrderRow = typeof orders.$inferInsert;

/** Advisory lock key that serialises choices of RUB PAYIN payable amounts. */
const RUB_AMOUNTS_LOCK = 727_401_002;

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

/** The columns a new fiat PAYIN gives itself; the requisite's come from the claimed requisite. */
export const OWN_ORDER_COLUMNS = [
  'id',
  'merchantId',
  'externalId',
  'direction',
  'type',
  'currency',
  'amount',
  'payableAmount',
  'feePercent',
  'fee',
  'amountAfterFee',
  'convertToUsdt',
  'exchangeRate',
  'usdtAmount',
  'usdtAmountAfterFee',
  'status',
  'successCallbackUrl',
  'clientId',
  'clientRegisteredAt',
  'clientOrdersCount',
  'clientPaidCount',
  'comment',
  'expiresAt',
  'createdAt',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof OrderRow>;

export type OwnOrderColumns = Pick<NewOrderRow, (typeof OWN_ORDER_COLUMNS)[number]>;

function createOnFreeRequisiteSql(singleKind: boolean): SQL {
  const { columns, list } = insertSelectTemplate(orders, OWN_ORDER_COLUMNS, {
    requisiteId: sql`claimed.id`,
    pdAddress: sql`claimed.address`,
    pdBank: sql`claimed.bank`,
    pdHolderName: sql`claimed.holder_name`,
    pdEmv: sql`claimed.emv`,
  });
  // Only when asked (tryLockRub), and then without waiting (see insertPendingOrderOnFreeRequisite).
  const gate = sql`(NOT ${sql.placeholder('tryLockRub')}::boolean OR pg_try_advisory_xact_lock_shared(${sql.raw(String(RUB_AMOUNTS_LOCK))}))`;
  return sql`WITH ${claimFreeRequisiteCtes(gate, singleKind)},
    inserted AS (INSERT INTO ${orders} ${columns} SELECT ${list} FROM claimed RETURNING *),
    event AS (INSERT INTO ${orderEvents} (order_id, from_status, to_status, actor)
      SELECT id, NULL, 'pending', ${sql.placeholder('actor')}::text FROM inserted)
    SELECT * FROM inserted`;
}

const createOnFreeRequisite = {
  singleKind: preparedStatement('create_order_on_free_requisite_1', () => createOnFreeRequisiteSql(true)),
  severalKinds: preparedStatement('create_order_on_free_requisite_n', () => createOnFreeRequisiteSql(false)),
};

/**
 * One statement (one round trip, atomic on its own) that claims a free requisite for the order
 * (claimFreeRequisiteTemplate), inserts the pending order on it and its first timeline event, as
 * insertPendingOrder does. With `tryLockRub`, it goes ahead only if it gets the RUB amounts lock
 * shared at once: a one-statement creation must never wait for that lock while holding a requisite
 * row (a shifting order holding the lock may be waiting for that row: a deadlock). Returns
 * undefined, having changed nothing, when nothing was claimed. Throws DuplicateOrderError for a
 * taken order_id.
 */
export async function insertPendingOrderOnFreeRequisite(
  ex: Executor,
  row: OwnOrderColumns,
  pick: PickInput,
  options: { tryLockRub: boolean; actor: string },
): Promise<OrderRow | undefined> {
  try {
    const statement =
      pick.need.kinds.length === 1 ? createOnFreeRequisite.singleKind : createOnFreeRequisite.severalKinds;
    const [raw] = await statement(ex, {
      ...encodedValues(orders, row),
      ...pickValues(pick),
      tryLockRub: options.tryLockRub,
      actor: options.actor,
    });
    return raw ? typedRow(orders, raw) : undefined;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateOrderError();
    throw err;
  }
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

/** An order with the status of its latest receipt (null when it has none), as merchants see it. */
export type OrderWithReceipt = OrderRow & { receiptStatus: string | null };

// The outer row spelled out: drizzle writes a single-table select's columns unqualified, and a bare
// "id" inside the subquery would mean the receipt's.
const latestReceiptStatus = sql<string | null>`(SELECT r.status FROM ${receipts} r
  WHERE r.order_id = "orders"."id" ORDER BY r.created_at DESC LIMIT 1)`;

/**
 * The merchant read path's lookups, each one round trip and a named prepared statement (parsed and
 * planned once per connection): an order with its latest receipt status by internal id, or by a
 * merchant's external id. Bound to `db`, not usable inside a transaction.
 */
export function orderReads(db: Db) {
  const columns = { ...getTableColumns(orders), receiptStatus: latestReceiptStatus };
  const byId = db
    .select(columns)
    .from(orders)
    .where(eq(orders.id, sql.placeholder('id')))
    .limit(1)
    .prepare('order_with_receipt_by_id');
  const byExternalId = db
    .select(columns)
    .from(orders)
    .where(
      and(
        eq(orders.merchantId, sql.placeholder('merchantId')),
        eq(orders.externalId, sql.placeholder('externalId')),
      ),
    )
    .limit(1)
    .prepare('order_with_receipt_by_external_id');
  return {
    byId: async (id: string): Promise<OrderWithReceipt | undefined> => (await byId.execute({ id }))[0],
    byExternalId: async (merchantId: string, externalId: string): Promise<OrderWithReceipt | undefined> =>
      (await byExternalId.execute({ merchantId, externalId }))[0],
  };
}

export async function findOrderForUpdate(ex: Executor, id: string): Promise<OrderRow | undefined> {
  return (await ex.select().from(orders).where(eq(orders.id, id)).limit(1).for('update'))[0];
}

/**
 * The payable amount a shifting RUB PAYIN takes (decisions.md section 7; merchant-api.md "Amount
 * disambiguation rules" 4-5): the first of `amount`, +1, -1, +2, -2, ... within
 * `[amount - down, amount + up]` (never below 1) that no active pending RUB PAYIN order holds, or
 * `amount` when all are held. One statement whatever the window (bounded by MAX_AMOUNT_DEVIATION):
 * the candidates in that order, anti-joined with the held amounts of the window read through the
 * pending-amount index. The same order as `disambiguationCandidates` (a test holds them equal).
 */
export async function firstFreeRubAmount(
  ex: Executor,
  amount: number,
  deviation: { up: number; down: number },
  now: Date,
): Promise<number> {
  const reach = Math.max(deviation.up, deviation.down);
  const rows = rowsOf<{ v: string }>(
    await ex.execute(sql`WITH cand AS (
        SELECT k, CASE WHEN k = 0 THEN ${amount}::numeric
                       WHEN k % 2 = 1 THEN ${amount}::numeric + (k + 1) / 2
                       ELSE ${amount}::numeric - k / 2 END AS v
        FROM generate_series(0, ${2 * reach}::int) AS k),
      held AS (
        SELECT DISTINCT ${orders.payableAmount} AS v FROM ${orders}
        WHERE ${orders.status} = 'pending' AND ${orders.method} = 'fiat' AND ${orders.currency} = 'RUB'
          AND ${orders.payableAmount} BETWEEN ${amount - deviation.down}::numeric AND ${amount + deviation.up}::numeric
          AND ${orders.expiresAt} > ${now.toISOString()}::timestamptz)
      SELECT cand.v::text AS v FROM cand LEFT JOIN held ON held.v = cand.v
      WHERE held.v IS NULL
        AND cand.v BETWEEN ${amount - deviation.down}::numeric AND ${amount + deviation.up}::numeric
        AND cand.v >= 1
      ORDER BY cand.k LIMIT 1`),
  );
  return rows[0] ? Number(rows[0].v) : amount;
}

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
  /** The merchant's `order_id` (external id). */
  externalId?: string;
  status?: string;
  direction?: string;
  type?: string;
  from?: Date;
  to?: Date;
}

function filterSql(f: OrderFilter): SQL | undefined {
  return and(
    f.merchantId ? eq(orders.merchantId, f.merchantId) : undefined,
    f.externalId ? eq(orders.externalId, f.externalId) : undefined,
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

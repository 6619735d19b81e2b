/**
 * The orders' lists: filters, pages and the CSV stream (operators' and merchants' lists,
 * docs/api.md "Admin API"), over the orders table this module owns.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orderEvents, orders } from '../../db/tables/orders.js';
import type { OrderRow } from './order-view.js';

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
   * (digits) the amount asked or to pay (docs/decisions.md section 28: the portal's search).
   */
  search?: string;
  /**
   * Orders the search also finds through other modules (a chain transfer's tx hash, a bank
   * message's text: the operators' search, docs/decisions.md section 32).
   */
  alsoIds?: string[];
  /** The list's order: newest first (default), oldest first, or by amount. */
  sort?: 'created_desc' | 'created_asc' | 'amount_desc' | 'amount_asc';
  /** Only sandbox (true) or only live (false) orders; both when undefined (docs/decisions.md section 29). */
  test?: boolean;
}

/**
 * The mode part of an operator's order filter (docs/decisions.md section 36): live orders
 * unless the operator asks for `test` (sandbox orders only) or `all`; anything else is live.
 */
export function modeFilter(mode: string | undefined): Pick<OrderFilter, 'test'> {
  if (mode === 'all') return {};
  return { test: mode === 'test' };
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
 * at most one page is held at a time (the streamed CSV exports: docs/decisions.md section 28).
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

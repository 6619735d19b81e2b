import { sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { AppError } from '../../lib/errors.js';
import { ORDER_INFO_COLUMNS, type OrderInfoRow, type OrderRow } from './order-view.js';
import { createBatches } from './statement-batches.js';

/**
 * Most lookups one read statement answers (docs/decisions.md "Orders read in batches"): measured
 * against 8 and 32 at 64 connections.
 */
export const READ_BATCH_MAX = 16;

/** An order lookup's two ways: by internal id, by a merchant's external id in one mode. */
export interface OrderLookups<T> {
  byId(id: string): Promise<T | undefined>;
  /** The merchant's order of this external id in one mode (sandbox or live). */
  byExternalId(merchantId: string, externalId: string, test: boolean): Promise<T | undefined>;
}

/** How the lookups share statements: as many at once as the pool has connections, and how long one waits. */
export interface ReadBatching {
  /** Most read statements running at once (the general pool's size; 1 on PGlite). */
  connections: number;
  /** Milliseconds a lookup waits for its statement before SERVICE_UNAVAILABLE. */
  maxWaitMs: number;
}

/** The columns of ORDER_INFO_COLUMNS, as a select list. */
const infoFields = Object.fromEntries(ORDER_INFO_COLUMNS.map((k) => [k, orders[k]])) as {
  [K in (typeof ORDER_INFO_COLUMNS)[number]]: (typeof orders)[K];
};

/** What a lookup asks for: an internal id, or a merchant's external id in one mode. */
type Wanted = { id: string } | { merchantId: string; externalId: string; test: boolean };

/** The columns a lookup's answer is matched back by. */
type Keyed = Pick<OrderRow, 'id' | 'merchantId' | 'externalId' | 'test'>;

/**
 * One key per (merchant, mode, external id). No stored id holds a NUL (PostgreSQL text cannot, and
 * the service refuses ids with one before looking), so the separator cannot be forged.
 */
const externalKey = (merchantId: string, test: boolean, externalId: string) =>
  `${merchantId}\u0000${test ? 't' : 'f'}\u0000${externalId}`;

function lookups<T extends Keyed>(
  db: Db,
  fields: typeof infoFields | undefined,
  batching: ReadBatching,
): OrderLookups<T> {
  const from = () => (fields ? db.select(fields).from(orders) : db.select().from(orders));
  // Built for each batch, not prepared: PostgreSQL plans it for the orders table as it is now (see
  // docs/decisions.md "Orders read in batches", "Planned at each batch").
  const byIds = (ids: string[]) =>
    from().where(sql`${orders.id} = ANY(${sql.param(ids)}::text[])`) as unknown as Promise<T[]>;
  // The unique index (external_id, merchant_id, test) answers each triple of the arrays.
  const byExternalIds = (external: Array<{ merchantId: string; externalId: string; test: boolean }>) =>
    from().where(
      sql`(${orders.externalId}, ${orders.merchantId}, ${orders.test}) IN (SELECT * FROM unnest(${sql.param(external.map((w) => w.externalId))}::text[], ${sql.param(external.map((w) => w.merchantId))}::text[], ${sql.param(external.map((w) => w.test))}::boolean[]))`,
    ) as unknown as Promise<T[]>;

  const run = async (key: string, wanted: Wanted[]): Promise<Array<T | undefined>> => {
    if (key === 'id') {
      const ids = (wanted as Array<{ id: string }>).map((w) => w.id);
      const found = new Map((await byIds(ids)).map((row) => [row.id, row]));
      return ids.map((id) => found.get(id));
    }
    const external = wanted as Array<{ merchantId: string; externalId: string; test: boolean }>;
    const rows = await byExternalIds(external);
    const found = new Map(rows.map((row) => [externalKey(row.merchantId, row.test, row.externalId), row]));
    return external.map((w) => found.get(externalKey(w.merchantId, w.test, w.externalId)));
  };
  const batches = createBatches<Wanted, T | undefined>({
    run,
    maxSize: READ_BATCH_MAX,
    maxInFlight: batching.connections,
    // As long as a request waits for a pool's connection, then SERVICE_UNAVAILABLE like it.
    maxWaitMs: batching.maxWaitMs,
    timeoutError: () => new AppError('SERVICE_UNAVAILABLE'),
  });
  return {
    byId: (id) => batches.submit('id', { id }),
    byExternalId: (merchantId, externalId, test) =>
      batches.submit('external', { merchantId, externalId, test }),
  };
}

/**
 * The merchant read path's lookups (docs/decisions.md "Orders read in batches"): an order by
 * internal id, or by a merchant's external id. Each is one statement over arrays of keys, so
 * lookups that queue while every connection is busy share one statement and one round trip; at low
 * load a lookup runs alone at once. `full` reads every column, `info` only those the
 * merchant's answer shows (ORDER_INFO_COLUMNS). Bound to `db`, not usable inside a transaction.
 * A lookup answers the order or undefined, or rejects with SERVICE_UNAVAILABLE after
 * `batching.maxWaitMs` without a statement, or with its statement's error.
 */
export function orderReads(
  db: Db,
  batching: ReadBatching,
): { full: OrderLookups<OrderRow>; info: OrderLookups<OrderInfoRow> } {
  return {
    full: lookups<OrderRow>(db, undefined, batching),
    info: lookups<OrderInfoRow>(db, infoFields, batching),
  };
}

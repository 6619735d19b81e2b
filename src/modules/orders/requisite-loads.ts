import { type SQL, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';

/** Start of the current UTC day for `now` (daily turnover limits count from it). */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** Pending orders on the requisite `id`. */
export const activeOn = (id: SQL) =>
  sql`(SELECT count(*) FROM ${orders} WHERE ${orders.requisiteId} = ${id} AND ${orders.status} = 'pending')`;

/** The requisite's turnover today: pending amounts plus amounts confirmed since the UTC day start. */
export const turnoverOn = (
  id: SQL,
  dayStart: SQL,
) => sql`(SELECT coalesce(sum(${orders.payableAmount}), 0) FROM ${orders}
  WHERE ${orders.requisiteId} = ${id}
    AND (${orders.status} = 'pending' OR (${orders.status} = 'success' AND ${orders.finishedAt} >= ${dayStart})))`;

/** When the requisite last got an order (shown to operators). */
const lastOrderTimeOn = (
  id: SQL,
) => sql`(SELECT ${orders.createdAt} FROM ${orders} WHERE ${orders.requisiteId} = ${id}
  ORDER BY ${orders.seq} DESC LIMIT 1)`;

/** Each requisite's load, for operators: pending orders, today's turnover, when it last got an order. */
export async function requisiteLoads(
  ex: Executor,
  requisiteIds: string[],
  now: Date,
): Promise<Map<string, { activeOrders: number; todayTurnover: string; lastAssignedAt: Date | null }>> {
  if (requisiteIds.length === 0) return new Map();
  const day = sql`${utcDayStart(now).toISOString()}::timestamptz`;
  const id = sql.raw('r.id');
  const rows = rowsOf<{ id: string; active: string; turnover: string; last: string | Date | null }>(
    await ex.execute(sql`SELECT r.id, ${activeOn(id)} AS active, ${turnoverOn(id, day)} AS turnover,
        ${lastOrderTimeOn(id)} AS last
      FROM unnest(${`{${requisiteIds.join(',')}}`}::uuid[]) AS r(id)`),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        activeOrders: Number(r.active),
        todayTurnover: String(r.turnover),
        lastAssignedAt: r.last === null ? null : new Date(r.last),
      },
    ]),
  );
}

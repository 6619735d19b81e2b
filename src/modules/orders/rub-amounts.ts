import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';

/**
 * Advisory lock key that serialises choices of RUB PAYIN payable amounts (docs/decisions.md
 * section 7): the claim tries it shared, a shifting order takes it exclusive.
 */
export const RUB_AMOUNTS_LOCK = 727_401_002;

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

/**
 * The payable amount a shifting RUB PAYIN takes (docs/decisions.md section 7; docs/api.md "Amount
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
  const low = amount - deviation.down;
  const high = amount + deviation.up;
  const rows = rowsOf<{ v: string }>(
    await ex.execute(sql`WITH cand AS (
        SELECT k, CASE WHEN k = 0 THEN ${amount}::numeric
                       WHEN k % 2 = 1 THEN ${amount}::numeric + (k + 1) / 2
                       ELSE ${amount}::numeric - k / 2 END AS v
        FROM generate_series(0, ${2 * reach}::int) AS k),
      held AS (
        SELECT DISTINCT ${orders.payableAmount} AS v FROM ${orders}
        WHERE ${orders.status} = 'pending' AND ${orders.method} = 'fiat' AND ${orders.currency} = 'RUB'
          AND NOT ${orders.test} AND ${orders.payableAmount} BETWEEN ${low}::numeric AND ${high}::numeric
          AND ${orders.expiresAt} > ${now.toISOString()}::timestamptz)
      SELECT cand.v::text AS v FROM cand LEFT JOIN held ON held.v = cand.v
      WHERE held.v IS NULL AND cand.v BETWEEN ${low}::numeric AND ${high}::numeric AND cand.v >= 1
      ORDER BY cand.k LIMIT 1`),
  );
  return rows[0] ? Number(rows[0].v) : amount;
}

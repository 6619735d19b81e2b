import type { Decimal } from 'decimal.js';
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { toDbAmount } from '../../lib/money.js';
import { holderRequisiteIdsSql } from '../requisites/index.js';

// What the orders module knows of a holder's exposure (docs/decisions.md "Holders' limits in the
// claim"): their pending orders. The limit, the held amount and the lock are the holders module's,
// handed in through the composition root (the two modules rank side by side).

/**
 * The holders' part of the claim (docs/decisions.md "Holders' limits in the claim"), handed in by the
 * composition root (holders ranks beside orders): `room` is true when the candidate's holder (maybe
 * none) may take the order, given `pending`, the holder's pending RUB orders (this module's SQL);
 * `limited` is true when the holder has a limit, so that the requisite is taken only in a transaction
 * under `lock`, the holder's exposure lock.
 */
export interface HolderGate {
  room(input: { holderId: SQL; amount: SQL; currency: SQL; pending: SQL }): SQL;
  limited(holderId: SQL): SQL;
  lock(ex: Executor, holderId: string): Promise<void>;
}

/** The amounts of pending non-test fiat RUB orders on the requisites of the holder `holderId`. */
export const pendingOfHolder = (
  holderId: SQL,
) => sql`(SELECT coalesce(sum(${orders.payableAmount}), 0) FROM ${orders}
  WHERE ${orders.requisiteId} IN (${holderRequisiteIdsSql(holderId)}) AND ${orders.status} = 'pending'
    AND ${orders.method} = 'fiat' AND ${orders.currency} = 'RUB' AND NOT ${orders.test})`;

/**
 * Each holder's pending amount in RUB (non-test fiat orders on their requisites), for operators;
 * holders with none are absent from the map. Decimal strings.
 */
export async function holderPendingSums(ex: Executor, holderIds: string[]): Promise<Map<string, string>> {
  if (holderIds.length === 0) return new Map();
  const id = sql.raw('h.id');
  const rows = rowsOf<{ id: string; pending: string }>(
    await ex.execute(sql`SELECT h.id, ${pendingOfHolder(id)}::text AS pending
      FROM unnest(${`{${holderIds.join(',')}}`}::uuid[]) AS h(id)`),
  );
  return new Map(rows.map((r) => [r.id, r.pending]));
}

/**
 * Whether a requisite chosen outside the claim (a pool offer, docs/decisions.md section 23) may take
 * an order of `amount` for its holder (docs/decisions.md "Offers and the holder's room"): true when it
 * has no holder or there is no gate; otherwise the holder's exposure lock is taken (the same lock and
 * order as `takeRequisite`: after the RUB amounts lock) and the claim's own room condition is read
 * with a fresh statement, so that a suspended holder, or one whose held + pending + amount would pass
 * exposure_limit + security_deposit, gets none.
 */
export async function holderHasRoom(
  ex: Executor,
  gate: HolderGate | undefined,
  input: { holderId: string | null; amount: Decimal; currency: string },
): Promise<boolean> {
  if (!gate || !input.holderId) return true;
  await gate.lock(ex, input.holderId);
  const holderId = sql`${input.holderId}::uuid`;
  const room = gate.room({
    holderId,
    amount: sql`${toDbAmount(input.amount)}`,
    currency: sql`${input.currency}`,
    pending: pendingOfHolder(holderId),
  });
  return rowsOf<{ ok: boolean }>(await ex.execute(sql`SELECT ${room} AS ok`))[0]?.ok === true;
}

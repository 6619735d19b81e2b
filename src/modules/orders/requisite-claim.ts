import type { Decimal } from 'decimal.js';
import { type Column, desc, eq, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { type Db, type Executor, rowsOf } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { toDbAmount } from '../../lib/money.js';
import type { RequisiteNeed } from '../catalog/index.js';
import {
  disableRequisites,
  type PickedRequisite,
  type PickLock,
  type PickOperands,
  pickRequisiteQuery,
  requisiteLimitColumns,
} from '../requisites/index.js';
import type { NewOrderDraft } from './new-order.js';
import type { OrderRow } from './order-view.js';
import { DuplicateOrderError, isUniqueViolation } from './orders-repository.js';

/** Advisory lock key that serialises choices of RUB PAYIN payable amounts. */
const RUB_AMOUNTS_LOCK = 727_401_002;

/** What a new order needs from the pool. */
export interface PickInput {
  need: RequisiteNeed;
  currency: string;
  /** The payable amount, in currency units. */
  amount: Decimal;
  now: Date;
}

/** Start of the current UTC day for `now` (daily turnover limits count from it). */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** Pending orders on the requisite `id`. */
const activeOn = (id: SQL) =>
  sql`(SELECT count(*) FROM ${orders} WHERE ${orders.requisiteId} = ${id} AND ${orders.status} = 'pending')`;

/** The requisite's turnover today: pending amounts plus amounts confirmed since the UTC day start. */
const turnoverOn = (
  id: SQL,
  dayStart: SQL,
) => sql`(SELECT coalesce(sum(${orders.payableAmount}), 0) FROM ${orders}
  WHERE ${orders.requisiteId} = ${id}
    AND (${orders.status} = 'pending' OR (${orders.status} = 'success' AND ${orders.finishedAt} >= ${dayStart})))`;

/** The requisite's latest order, by insertion (its place in the least-recently-assigned rule). */
const lastOrderOn = (id: SQL) =>
  sql`(SELECT max(${orders.seq}) FROM ${orders} WHERE ${orders.requisiteId} = ${id})`;

/** When the requisite last got an order (shown to operators). */
const lastOrderTimeOn = (
  id: SQL,
) => sql`(SELECT ${orders.createdAt} FROM ${orders} WHERE ${orders.requisiteId} = ${id}
  ORDER BY ${orders.seq} DESC LIMIT 1)`;

/**
 * Room under the requisite's limits (docs/decisions.md section 7): fewer pending orders than
 * max_active_orders, today's turnover plus `amount` within daily_limit. Seen with the statement's
 * snapshot: a pick that takes a limited requisite checks again after locking it (withinLimits).
 */
function loadCondition(amount: SQL, dayStart: SQL) {
  const { maxActiveOrders, dailyLimit } = requisiteLimitColumns;
  return (id: SQL) =>
    sql`(${maxActiveOrders} IS NULL OR ${activeOn(id)} < ${maxActiveOrders})
      AND (${dailyLimit} IS NULL OR ${turnoverOn(id, dayStart)} + ${amount}::numeric <= ${dailyLimit})`;
}

const leastRecentlyAssigned = (id: SQL) => sql`${lastOrderOn(id)} ASC NULLS FIRST`;

/** The pick's operands from the values of one order. */
function operandsOf(input: PickInput): { operands: PickOperands; dayStart: SQL } {
  return {
    operands: {
      currency: sql`${input.currency}`,
      kinds: sql`${input.need.kinds.join(',')}`,
      severalKinds: input.need.kinds.length > 1,
      bankCode: sql`${input.need.bankCode ?? null}`,
      amount: sql`${toDbAmount(input.amount)}`,
    },
    dayStart: sql`${utcDayStart(input.now).toISOString()}::timestamptz`,
  };
}

/** The pick's operands as placeholders, for a statement prepared once. */
function placeholderOperands(severalKinds: boolean): { operands: PickOperands; dayStart: SQL } {
  return {
    operands: {
      currency: sql`${sql.placeholder('pickCurrency')}`,
      kinds: sql`${sql.placeholder('pickKinds')}`,
      severalKinds,
      bankCode: sql`${sql.placeholder('pickBankCode')}`,
      amount: sql`${sql.placeholder('pickAmount')}`,
    },
    dayStart: sql`${sql.placeholder('pickDayStart')}::timestamptz`,
  };
}

function placeholderValues(input: PickInput): Record<string, unknown> {
  return {
    pickCurrency: input.currency,
    pickKinds: input.need.kinds.join(','),
    pickBankCode: input.need.bankCode ?? null,
    pickAmount: toDbAmount(input.amount),
    pickDayStart: utcDayStart(input.now).toISOString(),
  };
}

/** The order columns copied from the picked requisite (the payment details as they were at creation). */
const FROM_PICK: Partial<Record<keyof OrderRow, SQL>> = {
  requisiteId: sql`pick.id`,
  pdAddress: sql`pick.address`,
  pdBank: sql`pick.bank`,
  pdHolderName: sql`pick.holder_name`,
  pdEmv: sql`pick.emv`,
};

/**
 * The INSERT ... SELECT of a new order on a free requisite: every column of `orders` either a
 * placeholder of the row's own value (cast to the column's type) or the picked requisite's, only
 * when the pick found an unlimited requisite not held by another order and `tryLockRub` (when set)
 * got the RUB amounts lock shared at once. A limited pick claims nothing (it needs the re-check).
 */
function claimSelect(severalKinds: boolean): SQL {
  const { operands, dayStart } = placeholderOperands(severalKinds);
  const pick = pickRequisiteQuery({
    operands,
    load: loadCondition(operands.amount, dayStart),
    order: leastRecentlyAssigned,
    lock: 'skip-locked',
  });
  const list: SQL[] = [];
  for (const [key, column] of Object.entries(getTableColumns(orders)) as Array<[string, Column]>) {
    // Drizzle names the identity column in an INSERT ... SELECT too, so the select draws its number.
    if (column.generatedIdentity) {
      list.push(sql.raw(`nextval(pg_get_serial_sequence('${getTableName(orders)}', '${column.name}'))`));
      continue;
    }
    list.push(
      FROM_PICK[key as keyof OrderRow] ??
        sql`${sql.placeholder(`o_${key}`)}::${sql.raw(column.getSQLType())}`,
    );
  }
  // Never waits for the lock while holding a requisite row: a shifting order holding the lock may
  // be waiting for that row (a deadlock).
  const gate = sql`(NOT ${sql.placeholder('tryLockRub')}::boolean OR pg_try_advisory_xact_lock_shared(${sql.raw(String(RUB_AMOUNTS_LOCK))}))`;
  return sql`SELECT ${sql.join(list, sql`, `)} FROM (${pick}) AS pick
    WHERE pick.max_active_orders IS NULL AND pick.daily_limit IS NULL AND ${gate}`;
}

/** The row's own values, as the driver takes them, named as claimSelect's placeholders. */
function rowValues(row: NewOrderDraft): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(orders)) as Array<[string, Column]>) {
    if (FROM_PICK[key as keyof OrderRow] || column.generatedIdentity) continue;
    const value = (row as Record<string, unknown>)[key];
    out[`o_${key}`] = value === null || value === undefined ? null : column.mapToDriverValue(value);
  }
  return out;
}

/**
 * Claims a free requisite and inserts the order on it in ONE statement (atomic on its own, no
 * transaction needed), through statements prepared once on `db`. Returns the order, or undefined
 * having changed nothing (every candidate held, the least recently assigned one limited, the RUB
 * lock busy). `row` carries every column but the requisite's. Throws DuplicateOrderError.
 */
export function createClaim(db: Db) {
  const prepared = {
    one: db.insert(orders).select(claimSelect(false)).returning().prepare('claim_order_1'),
    several: db.insert(orders).select(claimSelect(true)).returning().prepare('claim_order_n'),
  };
  return async function claim(
    row: NewOrderDraft,
    pick: PickInput,
    options: { tryLockRub: boolean; ex?: Executor },
  ): Promise<OrderRow | undefined> {
    const values = { ...rowValues(row), ...placeholderValues(pick), tryLockRub: options.tryLockRub };
    const severalKinds = pick.need.kinds.length > 1;
    try {
      if (options.ex) {
        // Inside a transaction: the same statement, prepared on the transaction's connection.
        const name = severalKinds ? 'claim_order_tx_n' : 'claim_order_tx_1';
        const inTx = options.ex.insert(orders).select(claimSelect(severalKinds)).returning().prepare(name);
        return (await inTx.execute(values))[0];
      }
      return (await (severalKinds ? prepared.several : prepared.one).execute(values))[0];
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateOrderError();
      throw err;
    }
  };
}

export type Claim = ReturnType<typeof createClaim>;

/**
 * Takes a requisite inside the caller's transaction when the one-statement claim could not
 * (docs/decisions.md section 7): the least recently assigned eligible one not held by another order;
 * when all are held, it waits for the first. A requisite with limits is checked again after it is
 * locked, with a fresh snapshot, and passed over if it has no room left. Returns undefined when none fits.
 */
export async function takeRequisite(ex: Executor, input: PickInput): Promise<PickedRequisite | undefined> {
  const { operands, dayStart } = operandsOf(input);
  const load = loadCondition(operands.amount, dayStart);
  const rejected: string[] = [];
  const pick = async (lock: PickLock, only?: string) =>
    (await ex.execute(
      pickRequisiteQuery({
        operands,
        load,
        order: leastRecentlyAssigned,
        lock,
        exclude: rejected,
        ...(only ? { only } : {}),
      }),
    )) as unknown;
  for (let attempt = 0; attempt < 10; attempt++) {
    let row = rowsOf<RawPick>(await pick('skip-locked'))[0];
    if (!row) row = rowsOf<RawPick>(await pick('wait'))[0];
    if (!row) return undefined;
    const picked = fromRaw(row);
    if (picked.maxActiveOrders === null && picked.dailyLimit === null) return picked;
    // Locked now: a new statement sees the orders committed while we waited.
    if (rowsOf<RawPick>(await pick('wait', picked.id))[0]) return picked;
    rejected.push(picked.id);
  }
  return undefined;
}

interface RawPick {
  id: string;
  address: string;
  bank: string;
  holder_name: string;
  emv: string | null;
  currency: string;
  max_active_orders: number | null;
  daily_limit: string | null;
}

function fromRaw(r: RawPick): PickedRequisite {
  return {
    id: r.id,
    address: r.address,
    bank: r.bank,
    holderName: r.holder_name,
    emv: r.emv,
    currency: r.currency,
    maxActiveOrders: r.max_active_orders,
    dailyLimit: r.daily_limit,
  };
}

/** The order columns copied from a requisite taken outside the one-statement claim. */
export function requisiteColumns(r: Pick<PickedRequisite, 'id' | 'address' | 'bank' | 'holderName' | 'emv'>) {
  return {
    requisiteId: r.id,
    pdAddress: r.address,
    pdBank: r.bank,
    pdHolderName: r.holderName,
    pdEmv: r.emv,
  };
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

/** Of `requisiteIds`, those whose last `streak` orders all expired unpaid (the auto-disable rule, issue 9). */
export async function expiredStreaks(
  ex: Executor,
  requisiteIds: string[],
  streak: number,
): Promise<string[]> {
  const out: string[] = [];
  for (const id of new Set(requisiteIds)) {
    const last = await ex
      .select({ status: orders.status, reason: orders.statusReason })
      .from(orders)
      .where(eq(orders.requisiteId, id))
      .orderBy(desc(orders.createdAt))
      .limit(streak);
    if (last.length === streak && last.every((o) => o.status === 'error' && o.reason === 'expired'))
      out.push(id);
  }
  return out;
}

/**
 * Disables the requisites of just-expired orders whose last `streak` orders all expired unpaid
 * (issue 9 section 4), with the reason shown to operators. Runs in the expiry transaction.
 * Returns the ids disabled.
 */
export async function disableAfterExpiredStreak(
  ex: Executor,
  expired: Array<{ requisiteId: string | null }>,
  streak: number,
): Promise<string[]> {
  const ids = expired.flatMap((o) => (o.requisiteId ? [o.requisiteId] : []));
  const due = await expiredStreaks(ex, ids, streak);
  return disableRequisites(ex, due, `disabled automatically: the last ${streak} orders expired unpaid`);
}

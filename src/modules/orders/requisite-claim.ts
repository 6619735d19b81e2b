import type { Decimal } from 'decimal.js';
import { type Column, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { type Db, type Executor, rowsOf } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { toDbAmount } from '../../lib/money.js';
import type { RequisiteNeed } from '../catalog/index.js';
import {
  assignPickedSql,
  type PickCandidate,
  type PickedRequisite,
  type PickLock,
  type PickOperands,
  pickRequisiteQuery,
  recordAssignment,
} from '../requisites/index.js';
import { type HolderGate, holderHasRoom, pendingOfHolder } from './holder-exposure.js';
import type { NewOrderDraft } from './new-order.js';
import { ORDER_INFO_COLUMNS, type OrderRow } from './order-view.js';
import {
  DuplicateOrderError,
  insertOrder,
  isUniqueViolation,
  type NewOrderRow,
} from './orders-repository.js';

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
export const activeOn = (id: SQL) =>
  sql`(SELECT count(*) FROM ${orders} WHERE ${orders.requisiteId} = ${id} AND ${orders.status} = 'pending')`;

/** The requisite's turnover today: pending amounts plus amounts confirmed since the UTC day start. */
export const turnoverOn = (
  id: SQL,
  dayStart: SQL,
) => sql`(SELECT coalesce(sum(${orders.payableAmount}), 0) FROM ${orders}
  WHERE ${orders.requisiteId} = ${id}
    AND (${orders.status} = 'pending' OR (${orders.status} = 'success' AND ${orders.finishedAt} >= ${dayStart})))`;

/**
 * Room under the requisite's limits (docs/decisions.md section 7): fewer pending orders than
 * max_active_orders, today's turnover plus `amount` within daily_limit. Seen with the statement's
 * snapshot: a pick that takes a limited requisite checks again after locking it (withinLimits).
 * The subqueries run only for a requisite that has the limit.
 */
function loadCondition(operands: PickOperands, dayStart: SQL, gate: HolderGate | undefined) {
  const amount = operands.amount;
  return (c: PickCandidate) => {
    const limits = sql`(${c.maxActiveOrders} IS NULL OR ${activeOn(c.id)} < ${c.maxActiveOrders})
      AND (${c.dailyLimit} IS NULL OR ${turnoverOn(c.id, dayStart)} + ${amount}::numeric <= ${c.dailyLimit})`;
    if (!gate) return limits;
    const room = gate.room({
      holderId: c.holderId,
      amount,
      currency: operands.currency,
      pending: pendingOfHolder(c.holderId),
    });
    return sql`${limits} AND ${room}`;
  };
}

/** The pick's operands from the values of one order. */
function operandsOf(input: PickInput): { operands: PickOperands; dayStart: SQL } {
  return {
    operands: {
      currency: sql`${input.currency}`,
      kinds: sql`${input.need.kinds.join(',')}`,
      ...(input.need.bankCode ? { bankCode: sql`${input.need.bankCode}` } : {}),
      amount: sql`${toDbAmount(input.amount)}`,
    },
    dayStart: sql`${utcDayStart(input.now).toISOString()}::timestamptz`,
  };
}

/** The pick's operands as placeholders, for a statement prepared once (per need of a bank or not). */
function placeholderOperands(sameBank: boolean): { operands: PickOperands; dayStart: SQL } {
  return {
    operands: {
      currency: sql`${sql.placeholder('pickCurrency')}`,
      kinds: sql`${sql.placeholder('pickKinds')}`,
      ...(sameBank ? { bankCode: sql`${sql.placeholder('pickBankCode')}` } : {}),
      amount: sql`${sql.placeholder('pickAmount')}`,
    },
    dayStart: sql`${sql.placeholder('pickDayStart')}::timestamptz`,
  };
}

function placeholderValues(input: PickInput): Record<string, unknown> {
  return {
    pickCurrency: input.currency,
    pickKinds: input.need.kinds.join(','),
    ...(input.need.bankCode ? { pickBankCode: input.need.bankCode } : {}),
    pickAmount: toDbAmount(input.amount),
    pickDayStart: utcDayStart(input.now).toISOString(),
  };
}

/** The order columns copied from the taken requisite (the payment details as they were at creation). */
const FROM_PICK: Partial<Record<keyof OrderRow, SQL>> = {
  requisiteId: sql`taken.id`,
  pdAddress: sql`taken.address`,
  pdBank: sql`taken.bank`,
  pdHolderName: sql`taken.holder_name`,
  pdEmv: sql`taken.emv`,
};

/** The new order's number, drawn from the identity of `orders.seq`. */
const NEXT_SEQ = sql.raw(`nextval(pg_get_serial_sequence('${getTableName(orders)}', '${orders.seq.name}'))`);

/**
 * The CTE `taken` of a one-statement claim (docs/decisions.md section 18): the pick, taken (its
 * `last_order_seq` set to a new order number) only when it is an unlimited requisite not held by
 * another order and `tryLockRub` (when set) got the RUB amounts lock shared at once. A limited pick
 * takes nothing (it needs the re-check).
 */
function takenCte(sameBank: boolean, holderGate: HolderGate | undefined): SQL {
  const { operands, dayStart } = placeholderOperands(sameBank);
  const pick = pickRequisiteQuery({
    operands,
    load: loadCondition(operands, dayStart, holderGate),
    lock: 'skip-locked',
  });
  // Never waits for the lock while holding a requisite row: a shifting order holding the lock may
  // be waiting for that row (a deadlock).
  const gate = sql`(NOT ${sql.placeholder('tryLockRub')}::boolean OR pg_try_advisory_xact_lock_shared(${sql.raw(String(RUB_AMOUNTS_LOCK))}))`;
  // A limited holder's requisite is taken under the holder's lock (takeRequisite), never here.
  const unlimited = holderGate ? sql` AND NOT ${holderGate.limited(sql.raw('pick.holder_id'))}` : sql``;
  return assignPickedSql(
    pick,
    sql`pick.max_active_orders IS NULL AND pick.daily_limit IS NULL${unlimited} AND ${gate}`,
    NEXT_SEQ,
  );
}

/**
 * The SELECT of a new order on the requisite `taken` (takenCte): every column of `orders` either a
 * placeholder of the row's own value (cast to the column's type) or the taken requisite's; the
 * order's `seq` is the number the requisite recorded.
 */
function claimSelect(): SQL {
  const list: SQL[] = [];
  for (const [key, column] of Object.entries(getTableColumns(orders)) as Array<[string, Column]>) {
    if (column.generatedIdentity) {
      list.push(sql`taken.last_order_seq`);
      continue;
    }
    list.push(
      FROM_PICK[key as keyof OrderRow] ??
        sql`${sql.placeholder(`o_${key}`)}::${sql.raw(column.getSQLType())}`,
    );
  }
  return sql`SELECT ${sql.join(list, sql`, `)} FROM taken`;
}

/**
 * What the claim answers: the columns of the merchant's answer (ORDER_INFO_COLUMNS) and the taken
 * requisite; reading back all of a new order's columns cost the API process a parse and a mapping
 * of each for nothing (docs/decisions.md "The requisite claim under load").
 */
const CLAIMED_FIELDS = Object.fromEntries(
  [...ORDER_INFO_COLUMNS, 'requisiteId' as const].map((key) => [key, orders[key]]),
) as { [K in ClaimedKey]: (typeof orders)[K] };
type ClaimedKey = (typeof ORDER_INFO_COLUMNS)[number] | 'requisiteId';

/** A new order as the claim answers it (CLAIMED_FIELDS). */
export type ClaimedOrder = Pick<OrderRow, ClaimedKey>;

/** The claim statement (not yet prepared) on `ex`: the CTE `taken`, then the insert from it. */
function claimStatement(ex: Executor, sameBank: boolean, gate: HolderGate | undefined) {
  const taken = ex.$with('taken', { id: sql<string>`id` }).as(takenCte(sameBank, gate));
  return ex.with(taken).insert(orders).select(claimSelect()).returning(CLAIMED_FIELDS);
}

/** The order columns the claim binds (all but the taken requisite's and the identity), once. */
const BOUND_COLUMNS = (Object.entries(getTableColumns(orders)) as Array<[string, Column]>)
  .filter(([key, column]) => !FROM_PICK[key as keyof OrderRow] && !column.generatedIdentity)
  .map(([key, column]) => ({ key, column, name: `o_${key}` }));

/** The row's own values, as the driver takes them, named as claimSelect's placeholders. */
function rowValues(row: NewOrderDraft): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = row as Record<string, unknown>;
  for (const { key, column, name } of BOUND_COLUMNS) {
    const value = values[key];
    out[name] = value === null || value === undefined ? null : column.mapToDriverValue(value);
  }
  return out;
}

/**
 * Claims a free requisite and inserts the order on it in ONE statement (atomic on its own, no
 * transaction needed; docs/decisions.md section 18), through statements prepared once on `db`. Returns the order, or undefined
 * having changed nothing (every candidate held, the least recently assigned one limited, the RUB
 * lock busy). `row` carries every column but the requisite's. Throws DuplicateOrderError.
 */
export function createClaim(db: Db, gate?: HolderGate) {
  // A statement's name names its text on a connection: a claim with the holders' gate is another text.
  const suffix = gate ? '_holders' : '';
  const prepared = {
    any: claimStatement(db, false, gate).prepare(`claim_order_any_bank${suffix}`),
    bank: claimStatement(db, true, gate).prepare(`claim_order_same_bank${suffix}`),
  };
  const claim = async function claim(
    row: NewOrderDraft,
    pick: PickInput,
    options: { tryLockRub: boolean; ex?: Executor },
  ): Promise<ClaimedOrder | undefined> {
    const values = { ...rowValues(row), ...placeholderValues(pick), tryLockRub: options.tryLockRub };
    const sameBank = pick.need.bankCode !== undefined;
    try {
      if (options.ex) {
        // Inside a transaction: the same statement, prepared on the transaction's connection.
        const name = `${sameBank ? 'claim_order_tx_same_bank' : 'claim_order_tx_any_bank'}${suffix}`;
        return (await claimStatement(options.ex, sameBank, gate).prepare(name).execute(values))[0];
      }
      return (await (sameBank ? prepared.bank : prepared.any).execute(values))[0];
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateOrderError();
      throw err;
    }
  };
  /** takeRequisite with this claim's holder gate, inside the caller's transaction. */
  const take = (ex: Executor, input: PickInput) => takeRequisite(ex, input, gate);
  /** holderHasRoom with this claim's holder gate, inside the caller's transaction. */
  const holderRoom = (ex: Executor, holderId: string | null, amount: Decimal, currency: string) =>
    holderHasRoom(ex, gate, { holderId, amount, currency });
  return Object.assign(claim, { take, holderRoom });
}

export type Claim = ReturnType<typeof createClaim>;
export type { HolderGate };

/**
 * Takes a requisite inside the caller's transaction when the one-statement claim could not
 * (docs/decisions.md section 7): the least recently assigned eligible one not held by another order;
 * when all are held, it waits for the first (that row alone). A requisite with limits is checked again after it is
 * locked, with a fresh snapshot, and passed over if it has no room left. Returns undefined when none fits.
 */
export async function takeRequisite(
  ex: Executor,
  input: PickInput,
  gate?: HolderGate,
): Promise<PickedRequisite | undefined> {
  const { operands, dayStart } = operandsOf(input);
  const load = loadCondition(operands, dayStart, gate);
  const rejected: string[] = [];
  const lockedHolders = new Set<string>();
  const pick = async (lock: PickLock, only?: string) =>
    (await ex.execute(
      pickRequisiteQuery({
        operands,
        load,
        lock,
        exclude: rejected,
        ...(only ? { only } : {}),
      }),
    )) as unknown;
  for (let attempt = 0; attempt < 10; attempt++) {
    let row = rowsOf<RawPick>(await pick('skip-locked'))[0];
    if (!row) {
      // Every candidate held: wait for the least recently assigned one alone, so that waiting never
      // holds a second requisite (one per kind) that another transaction may be waiting for.
      const next = rowsOf<RawPick>(await pick('none'))[0];
      if (!next) return undefined;
      // Never wait for a requisite of a holder whose exposure lock we hold: its holder may be
      // waiting for that lock (a lock cycle).
      if (next.holder_id && lockedHolders.has(next.holder_id)) {
        rejected.push(next.id);
        continue;
      }
      row = rowsOf<RawPick>(await pick('wait', next.id))[0];
      // Changed while we waited (paused, disabled, at its limits): look again.
      if (!row) continue;
    }
    const picked = fromRaw(row);
    // A holder's orders queue up on the holder's lock, so that the re-check below counts the
    // pending orders of every earlier one (docs/decisions.md "Holders' limits in the claim").
    if (gate && picked.holderId) {
      await gate.lock(ex, picked.holderId);
      lockedHolders.add(picked.holderId);
    } else if (picked.maxActiveOrders === null && picked.dailyLimit === null) return picked;
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
  holder_id: string | null;
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
    holderId: r.holder_id,
  };
}

/**
 * Inserts an order on a requisite taken outside the one-statement claim (takeRequisite, a pool
 * offer) and records the assignment on the requisite (docs/decisions.md section 18), inside the
 * caller's transaction. Throws DuplicateOrderError.
 */
export async function insertAssignedOrder(ex: Executor, row: NewOrderRow): Promise<OrderRow> {
  const order = await insertOrder(ex, row);
  if (order.requisiteId) await recordAssignment(ex, order.requisiteId, order.seq);
  return order;
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

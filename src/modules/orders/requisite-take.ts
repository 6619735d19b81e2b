import type { Decimal } from 'decimal.js';
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../db/database.js';
import { toDbAmount } from '../../lib/money.js';
import type { RequisiteNeed } from '../catalog/index.js';
import {
  type PickCandidate,
  type PickedRequisite,
  type PickLock,
  type PickOperands,
  pickRequisiteQuery,
  recordAssignment,
} from '../requisites/index.js';
import { type HolderGate, pendingOfHolder } from './holder-exposure.js';
import type { OrderRow } from './order-view.js';
import { insertOrder, type NewOrderRow } from './orders-repository.js';
import { activeOn, turnoverOn, utcDayStart } from './requisite-loads.js';

// What a new order needs of a requisite, as SQL (its room under the limits), and the way an order
// takes one inside its transaction when the one-statement claim (requisite-claim.ts) could not.

/** What a new order needs from the pool. */
export interface PickInput {
  need: RequisiteNeed;
  currency: string;
  /** The payable amount, in currency units. */
  amount: Decimal;
  now: Date;
}

/**
 * Room under the requisite's limits (docs/decisions.md section 7): fewer pending orders than
 * max_active_orders, today's turnover plus `amount` within daily_limit. Seen with the statement's
 * snapshot: a pick that takes a limited requisite checks again after locking it (withinLimits).
 * The subqueries run only for a requisite that has the limit.
 */
export function loadCondition(operands: PickOperands, dayStart: SQL, gate: HolderGate | undefined) {
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
export function operandsOf(input: PickInput): { operands: PickOperands; dayStart: SQL } {
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

import { and, asc, eq, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { requisites } from '../../db/tables/requisites.js';

/**
 * What an order needs from a requisite, as SQL: the values of one request (`sql\`${value}\``) or
 * the placeholders of a prepared statement (`sql.placeholder(...)`).
 */
export interface PickOperands {
  currency: SQL;
  /** One kind (`card`) or a comma list (`card,phone`): see `severalKinds`. */
  kinds: SQL;
  /** The types's kinds are more than one (then `kinds` is matched as a list). */
  severalKinds: boolean;
  /** The bank a same-bank type needs, or NULL. */
  bankCode: SQL;
  /** The payable amount. */
  amount: SQL;
}

/** How a pick waits for a requisite another order holds: skip it, or wait for it. */
export type PickLock = 'skip-locked' | 'wait';

/**
 * The query that picks one requisite for an order (docs/decisions.md section 7): enabled and not
 * paused (issue 19: a bank's block, a silent device), same currency,
 * a kind that fits the type, at the bank a same-bank type needs, the amount within min/max; plus
 * the caller's `load` condition over the candidate's id (room under max active orders and the
 * daily turnover limit: the orders module knows the orders), ordered by the caller's `order`
 * (least recently assigned first), then by id; `exclude` aside, `only` alone. The row is locked FOR
 * NO KEY UPDATE (never an update: the pool's rows are not rewritten per order), skipping or waiting
 * for rows other orders hold. Answers the columns an order copies and the limits to re-check.
 */
export function pickRequisiteQuery(input: {
  operands: PickOperands;
  load: (id: SQL) => SQL | undefined;
  order: (id: SQL) => SQL;
  lock: PickLock;
  exclude?: string[];
  only?: string;
}) {
  const o = input.operands;
  // Spelled out: inside the caller's subqueries over orders a bare "id" would be the order's.
  const id = sql.raw('"requisites"."id"');
  const query = new QueryBuilder()
    .select({
      id: requisites.id,
      address: requisites.address,
      bank: requisites.bank,
      holderName: requisites.holderName,
      emv: requisites.emv,
      currency: requisites.currency,
      maxActiveOrders: requisites.maxActiveOrders,
      dailyLimit: requisites.dailyLimit,
    })
    .from(requisites)
    .where(
      and(
        input.only ? eq(requisites.id, input.only) : undefined,
        eq(requisites.enabled, true),
        isNull(requisites.pausedReason),
        sql`${requisites.currency} = ${o.currency}::text`,
        o.severalKinds
          ? sql`${requisites.kind} = ANY(string_to_array(${o.kinds}::text, ','))`
          : sql`${requisites.kind} = ${o.kinds}::text`,
        sql`(${o.bankCode}::text IS NULL OR ${requisites.bankCode} = ${o.bankCode}::text)`,
        or(isNull(requisites.minAmount), sql`${requisites.minAmount} <= ${o.amount}::numeric`),
        or(isNull(requisites.maxAmount), sql`${requisites.maxAmount} >= ${o.amount}::numeric`),
        input.exclude && input.exclude.length > 0 ? notInArray(requisites.id, input.exclude) : undefined,
        input.load(id),
      ),
    )
    .orderBy(input.order(id), asc(requisites.id))
    .limit(1);
  return query.for('no key update', input.lock === 'skip-locked' ? { skipLocked: true } : {});
}

/** The columns pickRequisiteQuery answers. */
export interface PickedRequisite {
  id: string;
  address: string;
  bank: string;
  holderName: string;
  emv: string | null;
  currency: string;
  maxActiveOrders: number | null;
  dailyLimit: string | null;
}

/** The `max_active_orders` and `daily_limit` columns, for load conditions written by the caller. */
export const requisiteLimitColumns = {
  maxActiveOrders: requisites.maxActiveOrders,
  dailyLimit: requisites.dailyLimit,
};

import { getTableName, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { requisites } from '../../db/tables/requisites.js';

/**
 * What an order needs from a requisite, as SQL: the values of one request (`sql\`${value}\``) or
 * the placeholders of a prepared statement (`sql.placeholder(...)`).
 */
export interface PickOperands {
  currency: SQL;
  /** One kind (`card`) or a comma list (`card,phone`). */
  kinds: SQL;
  /** The bank a same-bank type needs; absent when the type takes any bank. */
  bankCode?: SQL;
  /** The payable amount (with `amountHigh`, the lowest of a batch's). */
  amount: SQL;
  /**
   * The highest payable amount of a batch of orders: a requisite passes the amount bounds if it
   * fits any amount from `amount` to this one (each order is held to its own by the caller).
   */
  amountHigh?: SQL;
}

/** How a pick treats a requisite another order holds: skip it, wait for it, or read it unlocked. */
export type PickLock = 'skip-locked' | 'wait' | 'none';

/** A candidate requisite's columns, as SQL, for the caller's load condition. */
export interface PickCandidate {
  id: SQL;
  maxActiveOrders: SQL;
  dailyLimit: SQL;
  /** The requisite's holder (null when it has none). */
  holderId: SQL;
}

/**
 * The query that picks one requisite for an order (docs/decisions.md sections 7 and 18): enabled and
 * not paused (a bank's block, a silent device), same currency, a kind that fits the type, at the bank
 * a same-bank type needs, the amount within min/max; plus the caller's `load` condition over the
 * candidate (room under max active orders and the daily turnover limit: the orders module knows the
 * orders); least recently assigned first (`last_order_seq`, then id); `exclude` aside, `only` alone.
 * For each kind the type takes, the candidates are read from the head of `requisites_lru_idx` (or
 * `requisites_bank_lru_idx`) and the first that fits is locked FOR NO KEY UPDATE, skipping or waiting
 * for rows other orders hold (or read unlocked: `none`); of those (one per kind) the least recently
 * assigned is the pick. Waiting is for one row at a time: with `wait`, name it with `only`. The cost
 * is a few index probes, whatever the pool's size, plus one row per candidate skipped (held, outside
 * its amounts, at its limits). Answers the columns an order copies, the limits to re-check
 * `last_order_seq` and `holder_id`, under the table's column names.
 */
export function pickRequisiteQuery(input: {
  operands: PickOperands;
  load: (candidate: PickCandidate) => SQL | undefined;
  lock: PickLock;
  exclude?: string[];
  only?: string;
  /** How many requisites to pick (default 1): the first `limit` that fit, least recently assigned first. */
  limit?: SQL;
}): SQL {
  const o = input.operands;
  const limit = input.limit ?? sql.raw('1');
  const conditions: SQL[] = [
    sql`cand.enabled AND cand.paused_reason IS NULL`,
    sql`cand.currency = ${o.currency}::text`,
    sql`cand.kind = want.kind`,
    sql`(cand.min_amount IS NULL OR cand.min_amount <= ${o.amountHigh ?? o.amount}::numeric)`,
    sql`(cand.max_amount IS NULL OR cand.max_amount >= ${o.amount}::numeric)`,
  ];
  if (o.bankCode) conditions.push(sql`cand.bank_code = ${o.bankCode}::text`);
  if (input.only) conditions.push(sql`cand.id = ${input.only}::uuid`);
  if (input.exclude && input.exclude.length > 0)
    conditions.push(sql`cand.id <> ALL(${`{${input.exclude.join(',')}}`}::uuid[])`);
  const load = input.load({
    id: sql.raw('cand.id'),
    maxActiveOrders: sql.raw('cand.max_active_orders'),
    dailyLimit: sql.raw('cand.daily_limit'),
    holderId: sql.raw('cand.holder_id'),
  });
  if (load) conditions.push(load);
  const lock =
    input.lock === 'none'
      ? sql.raw('')
      : sql.raw(`FOR NO KEY UPDATE OF cand${input.lock === 'skip-locked' ? ' SKIP LOCKED' : ''}`);
  return sql`SELECT pick.* FROM unnest(string_to_array(${o.kinds}::text, ',')) AS want(kind)
    CROSS JOIN LATERAL (
      SELECT cand.id, cand.address, cand.bank, cand.holder_name, cand.emv, cand.currency,
        cand.max_active_orders, cand.daily_limit, cand.last_order_seq, cand.holder_id,
        cand.min_amount, cand.max_amount
      FROM ${requisites} AS cand
      WHERE ${sql.join(conditions, sql` AND `)}
      ORDER BY cand.last_order_seq, cand.id
      LIMIT ${limit}
      ${lock}
    ) AS pick
    ORDER BY pick.last_order_seq, pick.id
    LIMIT ${limit}`;
}

/**
 * The data-modifying part of a one-statement claim (docs/decisions.md section 18 and "Orders
 * claimed in batches"): for each row of `assignments` (columns `cid`, the requisite chosen, and
 * `seq`, the new order's number) for which `when` holds, sets that requisite's `last_order_seq` to
 * `seq`. Answers the columns an order copies (`id`, `address`, `bank`, `holder_name`, `emv`),
 * `last_order_seq`, and every column of the assignment row under its own name (the order's own
 * values, for the insert that follows). Only the rows the claim locked are written: no row is
 * shared by all orders.
 */
export function assignEachSql(assignments: SQL, when: SQL): SQL {
  return sql`UPDATE ${requisites} SET last_order_seq = assignment.seq
    FROM (${assignments}) AS assignment
    WHERE ${requisites.id} = assignment.cid AND ${when}
    RETURNING ${requisites.id}, ${requisites.address}, ${requisites.bank}, ${requisites.holderName},
      ${requisites.emv}, ${requisites.lastOrderSeq}, assignment.*`;
}

/**
 * Records an assignment made outside the one-statement claim (docs/decisions.md section 18): the requisite `id`
 * now has the order `seq` as its latest. Only the taken row is written, and it is the row the order
 * holds locked already: no row is shared by all orders.
 */
export async function recordAssignment(ex: Executor, id: string, seq: number): Promise<void> {
  await ex.execute(
    sql`UPDATE ${requisites} SET last_order_seq = greatest(last_order_seq, ${seq}::bigint) WHERE id = ${id}::uuid`,
  );
}

/**
 * The ids of the holder's requisites, as a subquery over `holderId` (SQL), read through
 * `requisites_holder_idx`: for the claim's count of a holder's pending orders.
 */
export function holderRequisiteIdsSql(holderId: SQL): SQL {
  return sql`SELECT hreq.id FROM ${requisites} AS hreq WHERE hreq.holder_id = ${holderId}`;
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
  holderId: string | null;
}

/** The table whose rows every claim rewrites (last_order_seq, read from the LRU index's head): vacuumed by the service (docs/decisions.md "The requisite claim under load"). */
export const requisitesHotTable = getTableName(requisites);

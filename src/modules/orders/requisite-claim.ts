import type { Decimal } from 'decimal.js';
import { type Column, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { AppError } from '../../lib/errors.js';
import { toDbAmount } from '../../lib/money.js';
import { assignEachSql, type PickOperands, pickRequisiteQuery } from '../requisites/index.js';
import { type HolderGate, holderHasRoom } from './holder-exposure.js';
import type { NewOrderDraft } from './new-order.js';
import { ORDER_INFO_COLUMNS, type OrderRow } from './order-view.js';
import { DuplicateOrderError, isUniqueViolation } from './orders-repository.js';
import { utcDayStart } from './requisite-loads.js';
import { loadCondition, type PickInput, takeRequisite } from './requisite-take.js';
import { RUB_AMOUNTS_LOCK } from './rub-amounts.js';
import { createBatches } from './statement-batches.js';

/**
 * The pick's operands as placeholders, for a statement prepared once (per need of a bank or not):
 * a batch's lowest and highest payable amounts bound the candidates (pickRequisiteQuery).
 */
function placeholderOperands(sameBank: boolean): { operands: PickOperands; dayStart: SQL } {
  return {
    operands: {
      currency: sql`${sql.placeholder('pickCurrency')}`,
      kinds: sql`${sql.placeholder('pickKinds')}`,
      ...(sameBank ? { bankCode: sql`${sql.placeholder('pickBankCode')}` } : {}),
      amount: sql`${sql.placeholder('pickAmountLow')}`,
      amountHigh: sql`${sql.placeholder('pickAmountHigh')}`,
    },
    dayStart: sql`${sql.placeholder('pickDayStart')}::timestamptz`,
  };
}

/** The placeholders' values for the orders `picks` (one need, currency and day: batchKey). */
function placeholderValues(picks: readonly PickInput[]): Record<string, unknown> {
  const first = picks[0] as PickInput;
  let low = first.amount;
  let high = first.amount;
  for (const p of picks) {
    if (p.amount.lt(low)) low = p.amount;
    if (p.amount.gt(high)) high = p.amount;
  }
  return {
    pickCurrency: first.currency,
    pickKinds: first.need.kinds.join(','),
    ...(first.need.bankCode ? { pickBankCode: first.need.bankCode } : {}),
    pickAmountLow: toDbAmount(low),
    pickAmountHigh: toDbAmount(high),
    pickDayStart: utcDayStart(first.now).toISOString(),
    pickLimit: picks.length,
    pickAmounts: picks.map((p) => toDbAmount(p.amount)),
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
 * The CTE `taken` of a one-statement claim of a batch of orders (docs/decisions.md section 18 and
 * "Orders claimed in batches"). `input`: the orders, one row each in the order they came (`n`),
 * with every bound column (`o_<column>`) and the amount each picks by. `candidates`: the batch's
 * candidates, as many as orders, least recently assigned first, each locked (skipping rows other
 * claims hold); a candidate with limits (its own or its holder's) passes only with room for the
 * batch's lowest amount. `assign`, one order after another: the first candidate not yet taken in
 * the batch whose amount bounds fit the order; a candidate with limits takes nothing (its order
 * needs the re-check: takeRequisite), nor does an order left without a candidate. Each order given
 * a requisite draws its number at that step, so numbers follow the orders' order. The requisites
 * are taken only when `tryLockRub` (when set) got the RUB amounts lock shared at once.
 */
function takenCte(sameBank: boolean, holderGate: HolderGate | undefined): SQL {
  const { operands, dayStart } = placeholderOperands(sameBank);
  const pick = pickRequisiteQuery({
    operands,
    load: loadCondition(operands, dayStart, holderGate),
    lock: 'skip-locked',
    limit: sql`${sql.placeholder('pickLimit')}::int`,
  });
  const limitedHolder = holderGate ? sql` OR ${holderGate.limited(sql.raw('pick.holder_id'))}` : sql``;
  const inputs = BOUND_COLUMNS.map(
    ({ column, name }) => sql`${sql.placeholder(name)}::${sql.raw(column.getSQLType())}[]`,
  );
  const inputNames = BOUND_COLUMNS.map(({ column }) => sql.raw(`o_${column.name}`));
  const assignments = sql`WITH RECURSIVE
    input AS (SELECT * FROM unnest(${sql.join(inputs, sql`, `)}, ${sql.placeholder('pickAmounts')}::numeric[])
      WITH ORDINALITY AS input(${sql.join(inputNames, sql`, `)}, pick_amount, n)),
    candidates AS MATERIALIZED (
      SELECT pick.id, pick.min_amount, pick.max_amount,
        (pick.max_active_orders IS NOT NULL OR pick.daily_limit IS NOT NULL${limitedHolder}) AS limited,
        row_number() OVER (ORDER BY pick.last_order_seq, pick.id) AS r
      FROM (${pick}) AS pick),
    assign(n, taken, cid, seq) AS (
      SELECT 0::bigint, ARRAY[]::uuid[], NULL::uuid, NULL::bigint
      UNION ALL
      SELECT assign.n + 1,
        CASE WHEN c.id IS NULL THEN assign.taken ELSE assign.taken || c.id END,
        c.id,
        CASE WHEN c.id IS NULL THEN NULL ELSE ${NEXT_SEQ} END
      FROM assign JOIN input ON input.n = assign.n + 1
      LEFT JOIN LATERAL (
        SELECT candidates.id, candidates.limited FROM candidates
        WHERE candidates.id <> ALL(assign.taken)
          AND (candidates.min_amount IS NULL OR candidates.min_amount <= input.pick_amount)
          AND (candidates.max_amount IS NULL OR candidates.max_amount >= input.pick_amount)
        ORDER BY candidates.r LIMIT 1) AS c ON NOT c.limited)
    SELECT assign.cid, assign.seq, input.* FROM assign JOIN input USING (n) WHERE assign.cid IS NOT NULL`;
  // Never waits for the lock while holding a requisite row: a shifting order holding the lock may
  // be waiting for that row (a deadlock).
  const gate = sql`(NOT ${sql.placeholder('tryLockRub')}::boolean OR pg_try_advisory_xact_lock_shared(${sql.raw(String(RUB_AMOUNTS_LOCK))}))`;
  return assignEachSql(assignments, gate);
}

/**
 * The SELECT of the new orders on the requisites `taken` (takenCte): every column of `orders`
 * either the order's own bound value or the taken requisite's; the order's `seq` is the number the
 * requisite recorded.
 */
function claimSelect(): SQL {
  const list: SQL[] = [];
  for (const [key, column] of Object.entries(getTableColumns(orders)) as Array<[string, Column]>) {
    if (column.generatedIdentity) list.push(sql`taken.last_order_seq`);
    else list.push(FROM_PICK[key as keyof OrderRow] ?? sql.raw(`taken.o_${column.name}`));
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

/**
 * Most orders in one claim statement. Each batch locks as many requisites as it has orders, and a
 * process runs as many batches at once as its claim pool has connections: kept small, so that the
 * batches in flight lock a small part of a pool of tens of requisites (docs/decisions.md "Orders
 * claimed in batches").
 */
export const CLAIM_BATCH_MAX = 8;

/** One order waiting for its claim. */
interface ClaimEntry {
  row: NewOrderDraft;
  pick: PickInput;
  tryLockRub: boolean;
}

/** Orders that may share a statement: the same need, currency, RUB gate and UTC day. */
function batchKey(e: ClaimEntry): string {
  const { need, currency, now } = e.pick;
  return [need.kinds.join(','), need.bankCode ?? '', currency, e.tryLockRub, utcDayStart(now).getTime()].join(
    '|',
  );
}

/** The statement's values for `entries`: each bound column as an array, one element per order. */
function batchValues(entries: readonly ClaimEntry[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...placeholderValues(entries.map((e) => e.pick)),
    tryLockRub: (entries[0] as ClaimEntry).tryLockRub,
  };
  for (const { key, column, name } of BOUND_COLUMNS) {
    out[name] = entries.map((e) => {
      const value = (e.row as Record<string, unknown>)[key];
      return value === null || value === undefined ? null : column.mapToDriverValue(value);
    });
  }
  return out;
}

/** A prepared claim statement: executes with batchValues. */
interface ClaimStatement {
  execute(values: Record<string, unknown>): Promise<ClaimedOrder[]>;
}

/**
 * Runs one claim statement for `entries`: each gets its order, or undefined when the statement
 * gave it no requisite. An error fails the whole statement, whichever order caused it (a
 * duplicate order_id, most often): each order of a failed batch then claims alone, so that an
 * order fails only by its own error (DuplicateOrderError for a duplicate).
 */
async function claimEntries(
  statement: ClaimStatement,
  entries: readonly ClaimEntry[],
): Promise<Array<ClaimedOrder | undefined | Error>> {
  try {
    const rows = await statement.execute(batchValues(entries));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return entries.map((e) => byId.get(e.row.id));
  } catch (err) {
    if (entries.length === 1) {
      if (isUniqueViolation(err)) return [new DuplicateOrderError()];
      return [err instanceof Error ? err : new Error(String(err))];
    }
    const answers: Array<ClaimedOrder | undefined | Error> = [];
    for (const entry of entries) answers.push(...(await claimEntries(statement, [entry])));
    return answers;
  }
}

/**
 * Claims a free requisite and inserts the order on it in ONE statement (atomic on its own, no
 * transaction needed; docs/decisions.md section 18), through statements prepared once on `db`.
 * Orders that arrive while `connections` statements are running share the next statement, up to
 * CLAIM_BATCH_MAX (docs/decisions.md "Orders claimed in batches"); one that waits `maxWaitMs`
 * (milliseconds, default 5000) for its statement fails with SERVICE_UNAVAILABLE. Returns the
 * order, or undefined having changed nothing (every candidate held, the least recently assigned
 * fitting one limited, the RUB lock busy). `row` carries every column but the requisite's.
 * Throws DuplicateOrderError, SERVICE_UNAVAILABLE.
 */
export function createClaim(
  db: Db,
  gate?: HolderGate,
  options: { connections?: number; maxWaitMs?: number } = {},
) {
  // A statement's name names its text on a connection: a claim with the holders' gate is another text.
  const suffix = gate ? '_holders' : '';
  const prepared = {
    any: claimStatement(db, false, gate).prepare(`claim_orders_any_bank${suffix}`),
    bank: claimStatement(db, true, gate).prepare(`claim_orders_same_bank${suffix}`),
  };
  const batches = createBatches<ClaimEntry, ClaimedOrder | undefined>({
    maxSize: CLAIM_BATCH_MAX,
    maxInFlight: options.connections ?? 1,
    // As long as a request waits for a pool's connection, then SERVICE_UNAVAILABLE like it.
    maxWaitMs: options.maxWaitMs ?? 5000,
    timeoutError: () => new AppError('SERVICE_UNAVAILABLE'),
    run: (_key, entries) =>
      claimEntries(entries[0]?.pick.need.bankCode !== undefined ? prepared.bank : prepared.any, entries),
  });
  const claim = async function claim(
    row: NewOrderDraft,
    pick: PickInput,
    options: { tryLockRub: boolean; ex?: Executor },
  ): Promise<ClaimedOrder | undefined> {
    const entry: ClaimEntry = { row, pick, tryLockRub: options.tryLockRub };
    if (!options.ex) return batches.submit(batchKey(entry), entry);
    // Inside a transaction: the same statement for this order alone, on the transaction's connection.
    const sameBank = pick.need.bankCode !== undefined;
    const name = `${sameBank ? 'claim_orders_tx_same_bank' : 'claim_orders_tx_any_bank'}${suffix}`;
    const [answer] = await claimEntries(claimStatement(options.ex, sameBank, gate).prepare(name), [entry]);
    if (answer instanceof Error) throw answer;
    return answer;
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

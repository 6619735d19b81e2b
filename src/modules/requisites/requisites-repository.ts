import type { Decimal } from 'decimal.js';
import { and, asc, eq, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/database.js';
import { orders, requisites } from '../../db/schema.js';
import { toDbAmount } from '../../lib/money.js';
import type { RequisiteNeed } from '../orders/payment-types.js';

export type RequisiteRow = typeof requisites.$inferSelect;
export type NewRequisiteRow = typeof requisites.$inferInsert;

/** Start of the current UTC day for `now` (daily turnover limits count from it). */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The outer requisite row, spelled out: inside a subquery over `orders o` a bare "id" would mean o.id. */
const outerId = sql.raw('"requisites"."id"');

/** Least recently assigned first, then by id so that ties are broken the same way everywhere. */
const LRU_ORDER = [sql`${requisites.lastAssignedAt} ASC NULLS FIRST`, asc(requisites.id)] as const;

/** Pending orders on the requisite. */
const activeCount = sql<number>`(SELECT count(*) FROM ${orders} o WHERE o.requisite_id = ${outerId} AND o.status = 'pending')`;

/** Today's turnover: pending amounts plus amounts confirmed since the UTC day start. */
function turnover(dayStart: SQL): SQL<string> {
  return sql<string>`(SELECT coalesce(sum(o.payable_amount), 0) FROM ${orders} o
    WHERE o.requisite_id = ${outerId}
      AND (o.status = 'pending' OR (o.status = 'success' AND o.finished_at >= ${dayStart})))`;
}

export interface PickInput {
  need: RequisiteNeed;
  currency: string;
  /** The payable amount, in currency units. */
  amount: Decimal;
  now: Date;
}

/** What eligibility compares with, as SQL: parameters of one request, or placeholders. */
interface PickOperands {
  currency: SQL;
  /** The kind condition: `kind = <one>` when the type needs one kind (the pick index then gives
   * the LRU order without a sort), else `kind = ANY(<comma-separated kinds>)`. */
  kind: SQL;
  /** The bank a same-bank type needs, or NULL. */
  bankCode: SQL;
  amount: SQL;
  dayStart: SQL;
}

/** Placeholder values of claimFreeRequisiteTemplate for one order. */
export function pickValues(input: PickInput): Record<string, unknown> {
  return {
    pickCurrency: input.currency,
    pickKinds: input.need.kinds.join(','),
    pickBankCode: input.need.bankCode ?? null,
    pickAmount: toDbAmount(input.amount),
    pickDayStart: utcDayStart(input.now).toISOString(),
    pickNow: input.now.toISOString(),
  };
}

function operandsOf(values: Record<string, unknown> | undefined, singleKind: boolean): PickOperands {
  const v = (name: string) => (values ? sql`${values[name]}` : sql.placeholder(name));
  return {
    currency: sql`${v('pickCurrency')}::text`,
    kind: singleKind
      ? sql`${requisites.kind} = ${v('pickKinds')}::text`
      : sql`${requisites.kind} = ANY(string_to_array(${v('pickKinds')}::text, ','))`,
    bankCode: sql`${v('pickBankCode')}::text`,
    amount: sql`${v('pickAmount')}::numeric`,
    dayStart: sql`${v('pickDayStart')}::timestamptz`,
  };
}

/**
 * Which requisites may serve an order (decisions.md section 7): enabled, same currency, a kind that
 * fits the type, at the bank a same-bank type needs, the amount within min/max, room under max
 * active orders and the daily turnover limit; `exclude` aside.
 */
function eligibility(o: PickOperands, exclude: string[] = []): SQL | undefined {
  return and(
    eq(requisites.enabled, true),
    sql`${requisites.currency} = ${o.currency}`,
    o.kind,
    sql`(${o.bankCode} IS NULL OR ${requisites.bankCode} = ${o.bankCode})`,
    or(isNull(requisites.minAmount), sql`${requisites.minAmount} <= ${o.amount}`),
    or(isNull(requisites.maxAmount), sql`${requisites.maxAmount} >= ${o.amount}`),
    exclude.length > 0 ? notInArray(requisites.id, exclude) : undefined,
    or(isNull(requisites.maxActiveOrders), sql`${activeCount} < ${requisites.maxActiveOrders}`),
    or(isNull(requisites.dailyLimit), sql`${turnover(o.dayStart)} + ${o.amount} <= ${requisites.dailyLimit}`),
  );
}

/** Whether the (locked) requisite still has room under its limits, seen with a fresh snapshot. */
async function withinLimits(ex: Executor, id: string, input: PickInput): Promise<boolean> {
  const rows = await ex
    .select({ id: requisites.id })
    .from(requisites)
    .where(
      and(eq(requisites.id, id), eligibility(operandsOf(pickValues(input), input.need.kinds.length === 1))),
    );
  return rows.length > 0;
}

/**
 * Takes a requisite for a new order (decisions.md section 7): an eligible one (kind fits the type,
 * same-bank types at that bank, amount within min/max, room under max active orders and the daily
 * turnover limit), least recently assigned first, locked so concurrent orders spread over the pool.
 * A locked candidate is skipped; when all are locked the next one is waited for, then its limits
 * are checked again with a fresh snapshot. Marks it assigned. Returns undefined when none fits.
 */
export async function takeRequisite(ex: Executor, input: PickInput): Promise<RequisiteRow | undefined> {
  const rejected: string[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const query = () =>
      ex
        .select()
        .from(requisites)
        .where(eligibility(operandsOf(pickValues(input), input.need.kinds.length === 1), rejected))
        .orderBy(...LRU_ORDER)
        .limit(1);
    let row = (await query().for('update', { skipLocked: true }))[0];
    if (!row) row = (await query().for('update'))[0];
    if (!row) return undefined;
    if (
      (row.maxActiveOrders !== null || row.dailyLimit !== null) &&
      !(await withinLimits(ex, row.id, input))
    ) {
      rejected.push(row.id);
      continue;
    }
    await ex.update(requisites).set({ lastAssignedAt: input.now }).where(eq(requisites.id, row.id));
    return row;
  }
  return undefined;
}

/**
 * SQL that claims, in one statement, what takeRequisite takes in several: the least recently
 * assigned eligible requisite not locked by another transaction (FOR UPDATE SKIP LOCKED, so it
 * never waits), marked assigned at the `pickNow` placeholder. Two CTEs to put before a statement
 * that uses `claimed` (columns `id, address, bank, holder_name, emv`). Claims nothing when that
 * requisite has a max-active-orders or daily limit (those need takeRequisite's re-check with a
 * fresh snapshot, which one statement cannot take), when every candidate is locked, or when `gate`
 * (a boolean SQL expression, e.g. a try-lock) is false. Placeholders: those of pickValues;
 * `singleKind` must say whether the type needs one requisite kind.
 */
export function claimFreeRequisiteCtes(gate: SQL, singleKind: boolean): SQL {
  const pick = new QueryBuilder()
    .select({ id: requisites.id })
    .from(requisites)
    .where(eligibility(operandsOf(undefined, singleKind)))
    .orderBy(...LRU_ORDER)
    .limit(1)
    .for('update', { skipLocked: true });
  // A join with the locked pick, not `id = (subquery)`: measured here, the subquery form claimed
  // nothing in about 3 % of statements under 64 concurrent orders; the join never did.
  return sql`pick AS (${pick}),
    claimed AS (UPDATE ${requisites} r SET last_assigned_at = ${sql.placeholder('pickNow')}::timestamptz
      FROM pick WHERE r.id = pick.id AND r.max_active_orders IS NULL AND r.daily_limit IS NULL AND ${gate}
      RETURNING r.id, r.address, r.bank, r.holder_name, r.emv)`;
}

export async function insertRequisite(ex: Executor, row: NewRequisiteRow): Promise<RequisiteRow> {
  const rows = await ex.insert(requisites).values(row).returning();
  const inserted = rows[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

export async function findRequisiteForUpdate(ex: Executor, id: string): Promise<RequisiteRow | undefined> {
  return (await ex.select().from(requisites).where(eq(requisites.id, id)).for('update'))[0];
}

export async function updateRequisite(
  ex: Executor,
  id: string,
  patch: Partial<NewRequisiteRow>,
): Promise<RequisiteRow | undefined> {
  return (
    await ex
      .update(requisites)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(requisites.id, id))
      .returning()
  )[0];
}

/** All requisites with their active order count and today's turnover, for operators. */
export async function listRequisitesWithLoad(ex: Executor, now: Date) {
  return ex
    .select({
      requisite: requisites,
      activeOrders: activeCount,
      todayTurnover: turnover(sql`${utcDayStart(now).toISOString()}::timestamptz`),
    })
    .from(requisites)
    .orderBy(requisites.createdAt);
}

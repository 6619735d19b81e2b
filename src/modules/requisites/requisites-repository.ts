import type { Decimal } from 'decimal.js';
import { and, asc, eq, inArray, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm';
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

/** Pending orders on the requisite. */
const activeCount = sql<number>`(SELECT count(*) FROM ${orders} o WHERE o.requisite_id = ${outerId} AND o.status = 'pending')`;

/** Today's turnover: pending amounts plus amounts confirmed since the UTC day start. */
function turnover(dayStart: Date): SQL<string> {
  return sql<string>`(SELECT coalesce(sum(o.payable_amount), 0) FROM ${orders} o
    WHERE o.requisite_id = ${outerId}
      AND (o.status = 'pending' OR (o.status = 'success' AND o.finished_at >= ${dayStart.toISOString()}::timestamptz)))`;
}

export interface PickInput {
  need: RequisiteNeed;
  currency: string;
  /** The payable amount, in currency units. */
  amount: Decimal;
  now: Date;
}

function eligibility(input: PickInput, exclude: string[]): SQL | undefined {
  const amount = toDbAmount(input.amount);
  return and(
    eq(requisites.enabled, true),
    eq(requisites.currency, input.currency),
    inArray(requisites.kind, input.need.kinds),
    input.need.bankCode ? eq(requisites.bankCode, input.need.bankCode) : undefined,
    or(isNull(requisites.minAmount), sql`${requisites.minAmount} <= ${amount}::numeric`),
    or(isNull(requisites.maxAmount), sql`${requisites.maxAmount} >= ${amount}::numeric`),
    exclude.length > 0 ? notInArray(requisites.id, exclude) : undefined,
    or(isNull(requisites.maxActiveOrders), sql`${activeCount} < ${requisites.maxActiveOrders}`),
    or(
      isNull(requisites.dailyLimit),
      sql`${turnover(utcDayStart(input.now))} + ${amount}::numeric <= ${requisites.dailyLimit}`,
    ),
  );
}

/** Whether the (locked) requisite still has room under its limits, seen with a fresh snapshot. */
async function withinLimits(ex: Executor, id: string, input: PickInput): Promise<boolean> {
  const rows = await ex
    .select({ id: requisites.id })
    .from(requisites)
    .where(and(eq(requisites.id, id), eligibility(input, [])));
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
        .where(eligibility(input, rejected))
        .orderBy(sql`${requisites.lastAssignedAt} ASC NULLS FIRST`, asc(requisites.id))
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
    .select({ requisite: requisites, activeOrders: activeCount, todayTurnover: turnover(utcDayStart(now)) })
    .from(requisites)
    .orderBy(requisites.createdAt);
}

import { and, asc, desc, eq, lt, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { appeals } from '../../db/tables/appeals.js';

export type AppealRow = typeof appeals.$inferSelect;
export type AppealStatus = AppealRow['status'];

/** Writes a new open appeal; the partial unique index refuses a second open one for the order. */
export async function insertAppeal(ex: Executor, row: typeof appeals.$inferInsert): Promise<AppealRow> {
  const inserted = (await ex.insert(appeals).values(row).returning())[0];
  if (!inserted) throw new Error('appeal insert returned nothing');
  return inserted;
}

/** The open appeal of an order, if any. */
export async function openAppealOf(ex: Executor, orderId: string): Promise<AppealRow | undefined> {
  return (
    await ex
      .select()
      .from(appeals)
      .where(and(eq(appeals.orderId, orderId), eq(appeals.status, 'open')))
      .limit(1)
  )[0];
}

/** One appeal, locked for the transaction's decision. */
export async function lockAppeal(ex: Executor, id: string): Promise<AppealRow | undefined> {
  return (await ex.select().from(appeals).where(eq(appeals.id, id)).for('update'))[0];
}

/** One appeal; scoped to a merchant when `merchantId` is given. */
export async function findAppeal(
  ex: Executor,
  id: string,
  merchantId?: string,
): Promise<AppealRow | undefined> {
  const where = merchantId ? and(eq(appeals.id, id), eq(appeals.merchantId, merchantId)) : eq(appeals.id, id);
  return (await ex.select().from(appeals).where(where).limit(1))[0];
}

/** Writes an operator's decision on an appeal. */
export async function resolveAppealRow(
  ex: Executor,
  id: string,
  patch: { status: 'accepted' | 'rejected'; reason: string | null; resolvedBy: string; resolvedAt: Date },
): Promise<AppealRow> {
  const row = (await ex.update(appeals).set(patch).where(eq(appeals.id, id)).returning())[0];
  if (!row) throw new Error('appeal update returned nothing');
  return row;
}

/**
 * Appeals for a list: open ones by deadline (the operators' queue), the others newest first.
 * `merchantId` scopes it; `before` pages the newest-first lists by creation time.
 */
export async function listAppeals(
  ex: Executor,
  filter: {
    status?: AppealStatus | undefined;
    merchantId?: string | undefined;
    orderId?: string;
    before?: Date;
  },
  limit: number,
): Promise<AppealRow[]> {
  const where: SQL[] = [];
  if (filter.status) where.push(eq(appeals.status, filter.status));
  if (filter.merchantId) where.push(eq(appeals.merchantId, filter.merchantId));
  if (filter.orderId) where.push(eq(appeals.orderId, filter.orderId));
  if (filter.before) where.push(lt(appeals.createdAt, filter.before));
  return ex
    .select()
    .from(appeals)
    .where(and(...where))
    .orderBy(filter.status === 'open' ? asc(appeals.deadlineAt) : desc(appeals.createdAt))
    .limit(limit);
}

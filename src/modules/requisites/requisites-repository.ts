import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { requisites } from '../../db/tables/requisites.js';

export type RequisiteRow = typeof requisites.$inferSelect;
export type NewRequisiteRow = typeof requisites.$inferInsert;

export async function insertRequisite(ex: Executor, row: NewRequisiteRow): Promise<RequisiteRow> {
  const rows = await ex.insert(requisites).values(row).returning();
  const inserted = rows[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

export async function findRequisite(ex: Executor, id: string): Promise<RequisiteRow | undefined> {
  return (await ex.select().from(requisites).where(eq(requisites.id, id)).limit(1))[0];
}

export async function findRequisiteForUpdate(ex: Executor, id: string): Promise<RequisiteRow | undefined> {
  return (await ex.select().from(requisites).where(eq(requisites.id, id)).for('update'))[0];
}

/** The requisites of `ids` that exist. */
export async function findRequisites(ex: Executor, ids: string[]): Promise<RequisiteRow[]> {
  if (ids.length === 0) return [];
  return ex.select().from(requisites).where(inArray(requisites.id, ids));
}

/** How many of `ids` exist (a device bound to requisites must name real ones). */
export async function countRequisites(ex: Executor, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await ex.select({ id: requisites.id }).from(requisites).where(inArray(requisites.id, ids));
  return rows.length;
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

/** Every requisite, oldest first (operators' pool list). */
export async function listRequisites(ex: Executor): Promise<RequisiteRow[]> {
  return ex.select().from(requisites).orderBy(requisites.createdAt);
}

/** Disables the enabled ones of `ids` with the reason shown to operators; returns those disabled. */
export async function disableRequisites(ex: Executor, ids: string[], reason: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await ex
    .update(requisites)
    .set({ enabled: false, disabledReason: reason, updatedAt: sql`now()` })
    .where(and(inArray(requisites.id, ids), eq(requisites.enabled, true)))
    .returning({ id: requisites.id });
  return rows.map((r) => r.id);
}

import { and, desc, eq, getTableName } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { holderSettlements, holders } from '../../db/tables/holders.js';

// SQL on the holders module's own tables (holders, holder_settlements).

export type HolderRow = typeof holders.$inferSelect;
export type NewHolderRow = typeof holders.$inferInsert;
export type SettlementRow = typeof holderSettlements.$inferSelect;
export type NewSettlementRow = typeof holderSettlements.$inferInsert;

export async function insertHolder(ex: Executor, row: NewHolderRow): Promise<HolderRow> {
  const inserted = (await ex.insert(holders).values(row).returning())[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** The holder, or undefined. `lock`: FOR UPDATE, so that settlements of one holder queue up. */
export async function findHolder(ex: Executor, id: string, lock = false): Promise<HolderRow | undefined> {
  const query = ex.select().from(holders).where(eq(holders.id, id));
  return (await (lock ? query.for('update') : query))[0];
}

/** Every holder, by name (the admin list; a few hundred at most). */
export async function listHolders(ex: Executor): Promise<HolderRow[]> {
  return ex.select().from(holders).orderBy(holders.name, holders.id);
}

export async function updateHolder(
  ex: Executor,
  id: string,
  patch: Partial<NewHolderRow>,
): Promise<HolderRow | undefined> {
  return (await ex.update(holders).set(patch).where(eq(holders.id, id)).returning())[0];
}

export async function insertSettlement(ex: Executor, row: NewSettlementRow): Promise<SettlementRow> {
  const inserted = (await ex.insert(holderSettlements).values(row).returning())[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** The holder's settlements and corrections (or only one `kind`), newest first. */
export async function listSettlements(
  ex: Executor,
  holderId: string,
  limit = 100,
  kind?: 'settlement' | 'correction',
): Promise<SettlementRow[]> {
  return ex
    .select()
    .from(holderSettlements)
    .where(and(eq(holderSettlements.holderId, holderId), kind ? eq(holderSettlements.kind, kind) : undefined))
    .orderBy(desc(holderSettlements.createdAt), desc(holderSettlements.id))
    .limit(limit);
}

/** The table whose rows every holder's success rewrites (held_rub): vacuumed by the service (docs/decisions.md "The requisite claim under load"). */
export const holdersHotTable = getTableName(holders);

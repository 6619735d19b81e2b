import { eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { requisites } from '../../db/tables/requisites.js';

// Which holder a requisite belongs to (docs/decisions.md "Holders' money"): the column is this
// module's; the holders module reads and sets it through these functions.

/** A requisite as a holder's page lists it. */
export interface HolderRequisite {
  id: string;
  kind: string;
  bank: string;
  address: string;
  currency: string;
  enabled: boolean;
  pausedReason: string | null;
}

/** The holder of a requisite: its id, or null when the requisite has none or does not exist. */
export async function holderOfRequisite(ex: Executor, requisiteId: string): Promise<string | null> {
  const rows = await ex
    .select({ holderId: requisites.holderId })
    .from(requisites)
    .where(eq(requisites.id, requisiteId))
    .limit(1);
  return rows[0]?.holderId ?? null;
}

/**
 * The holders of the requisites of `ids` that exist (null: none), their rows locked FOR UPDATE in id
 * order until the caller's transaction ends, so that a parallel assignment cannot move one unseen.
 */
export async function lockRequisiteHolders(ex: Executor, ids: string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await ex
    .select({ id: requisites.id, holderId: requisites.holderId })
    .from(requisites)
    .where(inArray(requisites.id, ids))
    .orderBy(requisites.id)
    .for('update');
  return new Map(rows.map((r) => [r.id, r.holderId]));
}

/**
 * Gives the requisites of `ids` to `holderId` (null: to nobody). Answers the ids that exist and were
 * set; the caller compares them with what it asked for.
 */
export async function setRequisitesHolder(
  ex: Executor,
  ids: string[],
  holderId: string | null,
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await ex
    .update(requisites)
    .set({ holderId, updatedAt: now })
    .where(inArray(requisites.id, ids))
    .returning({ id: requisites.id });
  return rows.map((r) => r.id);
}

/** The requisites of a holder, oldest first. */
export async function requisitesOfHolder(ex: Executor, holderId: string): Promise<HolderRequisite[]> {
  return ex
    .select({
      id: requisites.id,
      kind: requisites.kind,
      bank: requisites.bank,
      address: requisites.address,
      currency: requisites.currency,
      enabled: requisites.enabled,
      pausedReason: requisites.pausedReason,
    })
    .from(requisites)
    .where(eq(requisites.holderId, holderId))
    .orderBy(requisites.createdAt);
}

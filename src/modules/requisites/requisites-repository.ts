import { and, eq, inArray, isNull, notInArray, or, sql } from 'drizzle-orm';
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

/** Why a requisite takes no new orders for now (docs/decisions.md section 24). */
export type PauseReason = 'block' | 'stale' | 'liveness' | 'holder' | 'own';

/**
 * Pauses those of `ids` that are not paused or are paused for one of `over` (a block overrides a
 * silent device and always a holder's standing; offline overrides stale); returns the ids it paused.
 * Pending orders stay pending.
 */
export async function pauseRequisites(
  ex: Executor,
  ids: string[],
  reason: PauseReason,
  over: PauseReason[],
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  // A bank's block overrides every other pause: lifting the holder's pause must never lift a block.
  const overriding: PauseReason[] =
    reason === 'block' && !over.includes('holder') ? [...over, 'holder'] : over;
  // A holder's own pause yields to every other reason, so that resuming it never lifts one of them
  // (docs/decisions.md "The holder's own page").
  const overridable: PauseReason[] =
    reason !== 'own' && !overriding.includes('own') ? [...overriding, 'own'] : overriding;
  const rows = await ex
    .update(requisites)
    .set({ pausedReason: reason, pausedAt: now, updatedAt: now })
    .where(
      and(
        inArray(requisites.id, ids),
        overridable.length > 0
          ? or(isNull(requisites.pausedReason), inArray(requisites.pausedReason, overridable))
          : isNull(requisites.pausedReason),
      ),
    )
    .returning({ id: requisites.id });
  return rows.map((r) => r.id);
}

/** Resumes those of `ids` paused for one of `reasons` (never a block, unless named); returns them. */
export async function resumeRequisites(
  ex: Executor,
  ids: string[],
  reasons: PauseReason[],
  now: Date,
): Promise<string[]> {
  if (ids.length === 0 || reasons.length === 0) return [];
  const rows = await ex
    .update(requisites)
    .set({ pausedReason: null, pausedAt: null, updatedAt: now })
    .where(and(inArray(requisites.id, ids), inArray(requisites.pausedReason, reasons)))
    .returning({ id: requisites.id });
  return rows.map((r) => r.id);
}

/**
 * The masks a requisite's bank messages show (docs/decisions.md section 24): a card's last four digits,
 * plus the endings operators added.
 */
export function requisiteMasks(r: Pick<RequisiteRow, 'kind' | 'address' | 'masks'>): string[] {
  const own = r.kind === 'card' || r.kind === 'account' ? [r.address.slice(-4)] : [];
  return [...new Set([...own, ...r.masks])];
}

/**
 * Records `mask` as the ending of a requisite that has none yet (a phone/SBP requisite whose bank's
 * texts show an account ending): the first message an operator assigns to its order teaches it.
 * Answers whether it was recorded (false when the requisite has an ending already).
 */
export async function learnMask(ex: Executor, id: string, mask: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(requisites)
    .set({ masks: [mask], updatedAt: now })
    .where(
      and(
        eq(requisites.id, id),
        sql`jsonb_array_length(${requisites.masks}) = 0`,
        notInArray(requisites.kind, ['card', 'account']),
      ),
    )
    .returning({ id: requisites.id });
  return rows.length > 0;
}

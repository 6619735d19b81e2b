import { desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { disableRequisites } from '../requisites/index.js';

// The auto-disable rule (docs/decisions.md section 18): a requisite whose last orders all expired unpaid.

/** Of `requisiteIds`, those whose last `streak` orders all expired unpaid (the auto-disable rule). */
export async function expiredStreaks(
  ex: Executor,
  requisiteIds: string[],
  streak: number,
): Promise<string[]> {
  const out: string[] = [];
  for (const id of new Set(requisiteIds)) {
    const last = await ex
      .select({ status: orders.status, reason: orders.statusReason })
      .from(orders)
      .where(eq(orders.requisiteId, id))
      .orderBy(desc(orders.createdAt))
      .limit(streak);
    if (last.length === streak && last.every((o) => o.status === 'error' && o.reason === 'expired'))
      out.push(id);
  }
  return out;
}

/**
 * Disables the requisites of just-expired orders whose last `streak` orders all expired unpaid
 *, with the reason shown to operators. Runs in the expiry transaction.
 * Returns the ids disabled.
 */
export async function disableAfterExpiredStreak(
  ex: Executor,
  expired: Array<{ requisiteId: string | null }>,
  streak: number,
): Promise<string[]> {
  const ids = expired.flatMap((o) => (o.requisiteId ? [o.requisiteId] : []));
  const due = await expiredStreaks(ex, ids, streak);
  return disableRequisites(ex, due, `disabled automatically: the last ${streak} orders expired unpaid`);
}

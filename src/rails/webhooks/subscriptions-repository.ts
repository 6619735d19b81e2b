import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { webhookSubscriptions } from '../../db/tables/webhooks.js';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

export async function insertSubscription(
  ex: Executor,
  row: { merchantId: string; url: string; events: string[]; test: boolean },
): Promise<SubscriptionRow> {
  const rows = await ex.insert(webhookSubscriptions).values(row).returning();
  return rows[0] as SubscriptionRow;
}

/** A merchant's subscriptions of one mode (`test`: the sandbox's), oldest first. */
export async function merchantSubscriptions(
  ex: Executor,
  merchantId: string,
  test: boolean,
): Promise<SubscriptionRow[]> {
  return ex
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.merchantId, merchantId), eq(webhookSubscriptions.test, test)))
    .orderBy(webhookSubscriptions.createdAt);
}

/**
 * The enabled subscriptions of these merchants, both modes (the event hook's one query per move
 * batch; the hook matches each event to the subscriptions of its own mode).
 */
export async function subscriptionsOf(ex: Executor, merchantIds: string[]): Promise<SubscriptionRow[]> {
  if (merchantIds.length === 0) return [];
  return ex
    .select()
    .from(webhookSubscriptions)
    .where(
      and(inArray(webhookSubscriptions.merchantId, merchantIds), eq(webhookSubscriptions.enabled, true)),
    );
}

/** Deletes a merchant's own subscription of one mode; false when it has none of that id in that mode. */
export async function deleteSubscription(
  ex: Executor,
  merchantId: string,
  test: boolean,
  id: string,
): Promise<boolean> {
  const rows = await ex
    .delete(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.id, id),
        eq(webhookSubscriptions.merchantId, merchantId),
        eq(webhookSubscriptions.test, test),
      ),
    )
    .returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

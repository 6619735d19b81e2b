import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { webhookSubscriptions } from '../../db/tables/webhooks.js';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

export async function insertSubscription(
  ex: Executor,
  row: { merchantId: string; url: string; events: string[] },
): Promise<SubscriptionRow> {
  const rows = await ex.insert(webhookSubscriptions).values(row).returning();
  return rows[0] as SubscriptionRow;
}

/** A merchant's subscriptions, oldest first. */
export async function merchantSubscriptions(ex: Executor, merchantId: string): Promise<SubscriptionRow[]> {
  return ex
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.merchantId, merchantId))
    .orderBy(webhookSubscriptions.createdAt);
}

/** The enabled subscriptions of these merchants (the event hook's one query per move batch). */
export async function subscriptionsOf(ex: Executor, merchantIds: string[]): Promise<SubscriptionRow[]> {
  if (merchantIds.length === 0) return [];
  return ex
    .select()
    .from(webhookSubscriptions)
    .where(
      and(inArray(webhookSubscriptions.merchantId, merchantIds), eq(webhookSubscriptions.enabled, true)),
    );
}

/** Deletes a merchant's own subscription; false when it has none of that id. */
export async function deleteSubscription(ex: Executor, merchantId: string, id: string): Promise<boolean> {
  const rows = await ex
    .delete(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.merchantId, merchantId)))
    .returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

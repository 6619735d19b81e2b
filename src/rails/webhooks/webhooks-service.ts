import { type Database, type Executor, notify, OUTBOX_CHANNEL } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { SuccessHook } from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { EventType } from './event-types.js';
import { webhookBody } from './webhook-body.js';
import {
  type DeliveryRow,
  findDelivery,
  insertDelivery,
  listDeliveries,
  outboxLagSeconds,
} from './webhooks-repository.js';

/** A delivery with its attempt log, as operators and merchants read it. */
export function deliveryView(
  d: DeliveryRow,
  attempts: Awaited<ReturnType<typeof listDeliveries>>[number]['attempts'],
) {
  return {
    id: d.id,
    order_id: d.orderId,
    merchant_id: d.merchantId,
    url: d.url,
    body: d.body,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    resend_of: d.resendOf,
    // Written only from EVENT_TYPES (event-types.ts); null for the success webhook.
    event_type: d.eventType as EventType | null,
    event_id: d.eventId,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    attempt_log: attempts.map((a) => ({
      attempt: a.attemptNo,
      started_at: a.startedAt.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      response: a.responseSnippet,
    })),
  };
}

/** The webhook outbox as the rest of the service sees it (docs/decisions.md section 11). */
export function createWebhooksService(deps: { database: Database; clock: Clock; onEnqueued?: () => void }) {
  const { database, clock } = deps;
  const db = database.db;

  /**
   * Success hook for the order lifecycle: writes the outbox row, due at once, in the transaction of
   * the move to `success`; nothing when the order has no `success_callback_url` (docs/api.md Events).
   */
  const enqueueOnSuccess: SuccessHook = async (ex: Executor, order) => {
    if (!order.successCallbackUrl) return;
    await insertDelivery(ex, {
      orderId: order.id,
      merchantId: order.merchantId,
      url: order.successCallbackUrl,
      body: webhookBody(order),
      dueAt: new Date(clock.now()),
      test: order.test,
    });
    // The row is visible only after the caller's commit, which delivers this to every dispatcher.
    await notify(ex, OUTBOX_CHANNEL);
  };

  return {
    enqueueOnSuccess,

    /** Age in seconds of the oldest due, undelivered webhook (the outbox lag metric). */
    outboxLagSeconds: () => outboxLagSeconds(db),

    /** Deliveries with their attempt log, newest first (operators: `GET /admin/webhooks`). */
    async list(filter: { orderId?: string; status?: string }, limit = 100) {
      const rows = await listDeliveries(db, filter, limit);
      return rows.map((r) => deliveryView(r.delivery, r.attempts));
    },

    /**
     * A new delivery of the same body to the same URL, due at once, signed with the merchant's
     * current key when sent; audited. With `merchantId` (the portal) another merchant's delivery
     * is NOT_FOUND, like a missing one.
     */
    async resend(id: string, actor: AdminActor, merchantId?: string) {
      const view = await db.transaction(async (tx) => {
        const original = await findDelivery(tx, id);
        if (!original || (merchantId !== undefined && original.merchantId !== merchantId))
          throw new AppError('NOT_FOUND');
        const copy = await insertDelivery(tx, {
          orderId: original.orderId,
          merchantId: original.merchantId,
          url: original.url,
          body: original.body,
          dueAt: new Date(clock.now()),
          resendOf: original.id,
          eventType: original.eventType,
          eventId: original.eventId,
          subscriptionId: original.subscriptionId,
          test: original.test,
        });
        await notify(tx, OUTBOX_CHANNEL);
        await writeAudit(tx, actor, {
          action: 'webhook.resend',
          targetType: original.orderId ? 'order' : 'merchant',
          targetId: original.orderId ?? original.merchantId,
          after: { delivery_id: copy.id, resend_of: original.id },
        });
        return deliveryView(copy, []);
      });
      deps.onEnqueued?.();
      return view;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

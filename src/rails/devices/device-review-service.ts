import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { eventActor, lockOrder, type OrderLifecycle } from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  bindingsOf,
  type DeviceEventRow,
  findDevice,
  findEvent,
  listEvents,
  orderIdsOfMessages,
  updateEvent,
} from './devices-repository.js';

/** A device event as operators see it (`GET /admin/device-events`). */
export function deviceEventView(e: DeviceEventRow) {
  return {
    id: e.id,
    device_id: e.deviceId,
    app: e.app,
    channel: e.channel,
    source: e.source,
    title: e.title,
    text: e.text,
    received_at: e.receivedAt.toISOString(),
    bank_code: e.bankCode,
    parse: e.parse,
    kind: e.kind,
    rule_id: e.ruleId,
    fields: e.fields ?? null,
    amount: e.amount === null ? null : money(e.amount).toFixed(),
    requisite_id: e.requisiteId,
    status: e.status,
    reason: e.reason,
    order_id: e.orderId,
    paired_event_id: e.pairedEventId,
    resolved_by: e.resolvedBy,
    resolved_at: e.resolvedAt?.toISOString() ?? null,
    resolution: e.resolution,
    created_at: e.createdAt.toISOString(),
  };
}

/**
 * The operators' review queue of device events (issue 19 section 3): list, assign a message to an
 * order (the order succeeds through the lifecycle, audited, in one transaction; the unique index
 * lets an order be paid by one message only), or dismiss it with a reason.
 */
export function createDeviceReview(deps: { database: Database; clock: Clock; lifecycle: OrderLifecycle }) {
  const { database, clock, lifecycle } = deps;
  const db = database.db;

  return {
    /** The orders bank messages paid, by the message's id or a piece of its text (the operators' search). */
    ordersOfMessage: (text: string) => orderIdsOfMessages(db, text),

    async list(filter: { status?: DeviceEventRow['status']; device_id?: string; limit?: number }) {
      if (filter.device_id && !isUuid(filter.device_id)) return [];
      const rows = await listEvents(db, {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.device_id ? { deviceId: filter.device_id } : {}),
        limit: filter.limit ?? 200,
      });
      return rows.map(deviceEventView);
    },

    /**
     * Confirms `orderId` with the message: the event must be in review and be a bank's credit of
     * exactly the order's payable amount on the order's requisite (the event's, or one of its
     * device's when the message named none). Throws NOT_FOUND, ORDER_NOT_FOUND,
     * ORDER_STATE_CONFLICT or VALIDATION_ERROR.
     */
    async assign(eventId: string, orderId: string, actor: AdminActor) {
      if (!isUuid(eventId)) throw new AppError('NOT_FOUND');
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const event = await findEvent(tx, eventId, true);
        if (!event) throw new AppError('NOT_FOUND');
        if (event.status !== 'review') throw new AppError('ORDER_STATE_CONFLICT');
        if (event.channel === 'system' || event.kind !== 'credit' || !event.amount)
          throw invalidField('event', 'only a bank credit message confirms an order');
        const order = await lockOrder(tx, orderId);
        if (!order) throw new AppError('ORDER_NOT_FOUND');
        if (order.method !== 'fiat') throw new AppError('ORDER_STATE_CONFLICT');
        const allowed = event.requisiteId
          ? [event.requisiteId]
          : ((await bindingsOf(tx, [event.deviceId])).get(event.deviceId) ?? []);
        if (!order.requisiteId || !allowed.includes(order.requisiteId))
          throw invalidField('order_id', "the order is on another requisite than the message's");
        if (!money(order.payableAmount).equals(money(event.amount)))
          throw invalidField('order_id', "the message's amount differs from the order's payable amount");
        await lifecycle.succeed(tx, order, {
          actor: eventActor(actor),
          reason: `bank message ${event.id} assigned`,
          now,
          audit: { by: actor, action: 'device_event.assign', extra: { event_id: event.id } },
        });
        const done = await updateEvent(tx, event.id, {
          status: 'assigned',
          orderId,
          requisiteId: order.requisiteId,
          resolvedBy: actor.name,
          resolvedAt: now,
        });
        return deviceEventView(done ?? event);
      });
    },

    /** Closes a review item, block or alert without money moving; audited with the reason. */
    async dismiss(eventId: string, reason: string, actor: AdminActor) {
      if (!isUuid(eventId)) throw new AppError('NOT_FOUND');
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const event = await findEvent(tx, eventId, true);
        if (!event) throw new AppError('NOT_FOUND');
        if (!['review', 'alert', 'block'].includes(event.status)) throw new AppError('ORDER_STATE_CONFLICT');
        const done = await updateEvent(tx, event.id, {
          status: 'dismissed',
          resolution: reason,
          resolvedBy: actor.name,
          resolvedAt: now,
        });
        const device = await findDevice(tx, event.deviceId);
        await writeAudit(tx, actor, {
          action: 'device_event.dismiss',
          targetType: 'device_event',
          targetId: event.id,
          before: { status: event.status, reason: event.reason },
          after: { reason, device: device?.name ?? null },
        });
        return deviceEventView(done ?? event);
      });
    },
  };
}

export type DeviceReview = ReturnType<typeof createDeviceReview>;

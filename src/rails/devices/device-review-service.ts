import type { Database } from '../../db/database.js';
import { type AdminActor, eventActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { type OrderLifecycle, orderQueries } from '../../modules/orders/index.js';
import { learnMask } from '../../modules/requisites/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { type CandidateOrder, candidateOrders } from './device-order-reads.js';
import {
  bindingsOf,
  type DeviceEventRow,
  findDevice,
  findEvent,
  listEvents,
  orderIdsOfMessages,
  updateEvent,
} from './devices-repository.js';
import { ASSIGN_AFTER_END_MS, assignRefusal } from './message-assign.js';

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

/** The amounts a message shows: its credit's, or every one of a reading in doubt. */
const amountsOf = (e: DeviceEventRow): string[] =>
  e.fields?.amounts ? e.fields.amounts.split(' ') : e.amount === null ? [] : [e.amount];

const candidateView = (o: CandidateOrder) => ({
  id: o.id,
  order_id: o.externalId,
  amount: money(o.payableAmount).toFixed(),
  status: o.status,
  expires_at: o.expiresAt?.toISOString() ?? null,
});

/**
 * The operators' review queue of device events (docs/decisions.md section 24): list, assign a message to an
 * order (the order succeeds through the lifecycle, audited, in one transaction; the unique index
 * lets an order be paid by one message only), or dismiss it with a reason.
 */
export function createDeviceReview(deps: { database: Database; clock: Clock; lifecycle: OrderLifecycle }) {
  const { database, clock, lifecycle } = deps;
  const db = database.db;

  return {
    /** The orders bank messages paid, by the message's id or a piece of its text (the operators' search). */
    ordersOfMessage: (text: string) => orderIdsOfMessages(db, text),

    /**
     * Device events, newest first; each review item with an amount carries `candidates`: the orders
     * it could pay (its requisite's, or its device's when routing named none; fiat PAYIN of one of
     * its amounts, pending or ended within the last day).
     */
    async list(filter: { status?: DeviceEventRow['status']; device_id?: string; limit?: number }) {
      if (filter.device_id && !isUuid(filter.device_id)) return [];
      const rows = await listEvents(db, {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.device_id ? { deviceId: filter.device_id } : {}),
        limit: filter.limit ?? 200,
      });
      const waiting = rows.filter((e) => e.status === 'review' && e.amount !== null);
      const bound = await bindingsOf(db, [...new Set(waiting.map((e) => e.deviceId))]);
      const since = new Date(clock.now() - ASSIGN_AFTER_END_MS);
      return Promise.all(
        rows.map(async (e) => {
          if (e.status !== 'review' || e.amount === null) return { ...deviceEventView(e), candidates: [] };
          const requisites = e.requisiteId ? [e.requisiteId] : (bound.get(e.deviceId) ?? []);
          const found = await candidateOrders(db, requisites, amountsOf(e), since);
          return { ...deviceEventView(e), candidates: found.map(candidateView) };
        }),
      );
    },

    /**
     * Confirms an order with the message (message-assign.ts): `orderId` is the internal id or the
     * merchant's `order_id`. Throws NOT_FOUND, ORDER_NOT_FOUND, ORDER_STATE_CONFLICT,
     * MESSAGE_NOT_FOR_ORDER or VALIDATION_ERROR (an external id several merchants share). When the
     * order's requisite has no masks and the message shows one, the requisite learns it (audited).
     */
    async assign(eventId: string, orderId: string, actor: AdminActor) {
      if (!isUuid(eventId)) throw new AppError('NOT_FOUND');
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const event = await findEvent(tx, eventId, true);
        if (!event) throw new AppError('NOT_FOUND');
        const candidates = event.requisiteId
          ? [event.requisiteId]
          : ((await bindingsOf(tx, [event.deviceId])).get(event.deviceId) ?? []);
        const order = await orderQueries.lockOrderByAnyId(tx, orderId.trim(), (o) =>
          candidates.includes(o.requisiteId ?? ''),
        );
        if (!order) throw new AppError('ORDER_NOT_FOUND');
        const refusal = assignRefusal(event, order, candidates, now);
        if (refusal) throw refusal;
        await lifecycle.succeed(tx, order, {
          actor: eventActor(actor),
          reason: `bank message ${event.id} assigned`,
          now,
          audit: { by: actor, action: 'device_event.assign', extra: { event_id: event.id } },
        });
        const mask = event.fields?.mask;
        if (mask && order.requisiteId && (await learnMask(tx, order.requisiteId, mask, now)))
          await writeAudit(tx, actor, {
            action: 'requisite.mask_learned',
            targetType: 'requisite',
            targetId: order.requisiteId,
            after: { masks: [mask], event_id: event.id },
          });
        const done = await updateEvent(tx, event.id, {
          status: 'assigned',
          orderId: order.id,
          requisiteId: order.requisiteId,
          resolvedBy: actor.name,
          resolvedAt: now,
        });
        return deviceEventView(done ?? event);
      });
    },

    /**
     * The receipt a holder attached to their missed-payment report (docs/decisions.md "The holder's
     * own page"): its kept file's id and sniffed type, for the receipts rail's `keptFile`. NOT_FOUND
     * for another item or a report without a file.
     */
    async holderReportFile(eventId: string) {
      const event = isUuid(eventId) ? await findEvent(db, eventId) : undefined;
      const fileId = event?.app === 'holder_report' ? event.fields?.receipt_file_id : undefined;
      const contentType = event?.fields?.receipt_content_type;
      if (!fileId || !contentType) throw new AppError('NOT_FOUND');
      return { fileId, contentType };
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

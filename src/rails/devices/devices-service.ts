import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { bankNotifications } from '../../db/tables/devices.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { sha256Hex } from '../../lib/secrets.js';
import {
  eventActor,
  lateOrderForCredit,
  lockOrder,
  type OrderLifecycle,
  pendingOrdersForCredit,
} from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { bindingsOf, type DeviceRow, deviceByTokenDigest } from './devices-repository.js';

/** How long a payment to an expired order is held for operators rather than ignored (issue 9). */
export const LATE_WINDOW_MS = 24 * 3600 * 1000;

export type NotificationRow = typeof bankNotifications.$inferSelect;

/** A notification from a holder's device (`POST /trader/notifications`). */
export interface NotificationInput {
  message_id: string;
  requisite_id: string;
  amount: string | number;
  currency: string;
  received_at: string;
  text?: string | undefined;
}

function notificationView(n: NotificationRow) {
  return {
    id: n.id,
    message_id: n.messageId,
    requisite_id: n.requisiteId,
    amount: n.amount,
    currency: n.currency,
    received_at: n.receivedAt.toISOString(),
    text: n.text,
    status: n.status,
    reason: n.reason,
    order_id: n.orderId,
    created_at: n.createdAt.toISOString(),
  };
}

/**
 * The pre-parsed bank notifications of devices (issue 9; docs/decisions.md section 7).
 * A notification confirms the one pending PAYIN order on its requisite whose payable amount equals
 * the notified amount, in one transaction with the ledger credit and the webhook (the lifecycle);
 * anything else is kept for operators, never guessed.
 */
export function createDevicesService(deps: { database: Database; clock: Clock; lifecycle: OrderLifecycle }) {
  const { database, clock, lifecycle } = deps;
  const db = database.db;

  return {
    /** The live device of a bearer token (its current one, or the previous within a rotation's grace). */
    async deviceByToken(token: string): Promise<DeviceRow | undefined> {
      const row = await deviceByTokenDigest(db, sha256Hex(token));
      if (!row?.enabled || row.revokedAt) return undefined;
      if (row.tokenDigest !== sha256Hex(token)) {
        const until = row.previousSecrets?.validUntil;
        if (!until || Date.parse(until) <= clock.now()) return undefined;
      }
      return row;
    },

    /** The requisites whose orders the device confirms (issue 19: one device per requisite). */
    async boundRequisites(device: DeviceRow): Promise<string[]> {
      return (await bindingsOf(db, [device.id])).get(device.id) ?? [];
    },

    /**
     * Stores and matches a pre-parsed bank notification (issue 9 section 3), trusting the device's
     * own parse. The same `message_id` from the same device twice changes nothing (the first outcome
     * is returned). A requisite the device listed before issue 19 but another device now keeps is
     * stored unmatched (`device_not_bound`) for operators; any other requisite is FORBIDDEN.
     */
    async ingest(device: DeviceRow, input: NotificationInput) {
      const bound = (await bindingsOf(db, [device.id])).get(device.id) ?? [];
      const isBound = bound.includes(input.requisite_id);
      if (!isBound && !device.requisiteIds.includes(input.requisite_id)) throw new AppError('FORBIDDEN');
      const amount = money(String(input.amount));
      const receivedAt = new Date(input.received_at);
      if (Number.isNaN(receivedAt.getTime())) throw invalidField('received_at', 'must be an ISO 8601 time');
      const nowMs = clock.now();
      const now = new Date(nowMs);
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(bankNotifications)
          .values({
            deviceId: device.id,
            messageId: input.message_id,
            requisiteId: input.requisite_id,
            amount: toDbAmount(amount),
            currency: input.currency,
            receivedAt,
            text: input.text ?? null,
            status: 'unmatched',
            reason: 'no_order',
          })
          .onConflictDoNothing()
          .returning();
        const note = inserted[0];
        if (!note) {
          const first = (
            await tx
              .select()
              .from(bankNotifications)
              .where(
                and(
                  eq(bankNotifications.deviceId, device.id),
                  eq(bankNotifications.messageId, input.message_id),
                ),
              )
          )[0];
          return { duplicate: true, ...(first ? notificationView(first) : {}) };
        }
        const credit = { requisiteId: input.requisite_id, currency: input.currency, amount };
        const candidates = isBound ? await pendingOrdersForCredit(tx, credit, now) : [];
        let patch: Partial<NotificationRow>;
        if (!isBound) {
          patch = { status: 'unmatched', reason: 'device_not_bound' };
        } else if (candidates.length === 1 && candidates[0]) {
          await lifecycle.succeed(tx, candidates[0], {
            actor: `device:${device.name}`,
            reason: `bank notification ${input.message_id}`,
            now,
          });
          patch = { status: 'matched', reason: null, orderId: candidates[0].id };
        } else if (candidates.length > 1) {
          patch = { status: 'unmatched', reason: 'ambiguous' };
        } else {
          const late = await lateOrderForCredit(tx, credit, new Date(nowMs - LATE_WINDOW_MS), now);
          patch = late
            ? { status: 'late', reason: 'late', orderId: late }
            : { status: 'unmatched', reason: 'no_order' };
        }
        const done = (
          await tx.update(bankNotifications).set(patch).where(eq(bankNotifications.id, note.id)).returning()
        )[0];
        return { duplicate: false, ...notificationView(done ?? note) };
      });
    },

    /** Operators: notifications by status (e.g. unmatched, late), newest first. */
    async listNotifications(status: NotificationRow['status'] | undefined) {
      const rows = await db
        .select()
        .from(bankNotifications)
        .where(status ? eq(bankNotifications.status, status) : undefined)
        .orderBy(desc(bankNotifications.createdAt))
        .limit(500);
      return rows.map(notificationView);
    },

    /**
     * An operator assigns an unmatched or late notification to an order: the order succeeds (a late one
     * with the notification as the reason) in the same transaction; audited.
     */
    async assign(notificationId: string, orderId: string, actor: AdminActor) {
      if (!/^[0-9a-f-]{36}$/i.test(notificationId)) throw new AppError('NOT_FOUND');
      return db.transaction(async (tx) => {
        const note = (
          await tx
            .select()
            .from(bankNotifications)
            .where(eq(bankNotifications.id, notificationId))
            .for('update')
        )[0];
        if (!note) throw new AppError('NOT_FOUND');
        if (note.status === 'matched' || note.status === 'assigned')
          throw new AppError('ORDER_STATE_CONFLICT');
        const order = await lockOrder(tx, orderId);
        if (!order) throw new AppError('ORDER_NOT_FOUND');
        if (order.direction !== 'PAYIN') throw new AppError('ORDER_STATE_CONFLICT');
        await lifecycle.succeed(tx, order, {
          actor: eventActor(actor),
          reason: `bank notification ${note.messageId} assigned`,
          now: new Date(clock.now()),
        });
        const done = (
          await tx
            .update(bankNotifications)
            .set({ status: 'assigned', orderId })
            .where(eq(bankNotifications.id, note.id))
            .returning()
        )[0];
        await writeAudit(tx, actor, {
          action: 'notification.assign',
          targetType: 'order',
          targetId: orderId,
          after: { notification_id: note.id, message_id: note.messageId },
        });
        return notificationView(done ?? note);
      });
    },
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;

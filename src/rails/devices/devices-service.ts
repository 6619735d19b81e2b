import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { bankNotifications } from '../../db/tables/devices.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { OrderLifecycle } from '../../modules/orders/index.js';
import { bindingsOf, type DeviceRow, deviceByTokenDigest } from './devices-repository.js';

export type NotificationRow = typeof bankNotifications.$inferSelect;

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
 * Devices' bearer tokens and the history of pre-parsed bank notifications. The pre-parsed
 * `POST /trader/notifications` is gone (docs/api.md "Removed endpoints"): every phone's message goes
 * through the one pipeline (message-ingest.ts); the stored notifications stay readable.
 */
export function createDevicesService(deps: { database: Database; clock: Clock; lifecycle: OrderLifecycle }) {
  const { database, clock } = deps;
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

    /** The requisites whose orders the device confirms (docs/decisions.md section 24: one device per requisite). */
    async boundRequisites(device: DeviceRow): Promise<string[]> {
      return (await bindingsOf(db, [device.id])).get(device.id) ?? [];
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
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;

import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the devices module: only src/modules/devices/ reads and writes them (docs/architecture.md).

/** Requisite holders' phones that report incoming bank transfers (issue 9); token kept as a digest. */
export const traderDevices = pgTable('trader_devices', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  tokenDigest: text('token_digest').notNull().unique(),
  /** The requisites this holder's device may report for. */
  requisiteIds: jsonb('requisite_ids').$type<string[]>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
});

/** Bank notifications from devices and how each was matched (never guessed: unmatched ones wait for operators). */
export const bankNotifications = pgTable(
  'bank_notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => traderDevices.id),
    messageId: text('message_id').notNull(),
    requisiteId: uuid('requisite_id').notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    receivedAt: ts('received_at').notNull(),
    text: text('text'),
    status: text('status').$type<'matched' | 'unmatched' | 'late' | 'assigned'>().notNull(),
    /** Why it is unmatched: no_order, ambiguous, late. */
    reason: text('reason'),
    orderId: text('order_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('bank_notifications_message_uq').on(t.deviceId, t.messageId),
    index('bank_notifications_status_idx').on(t.status, t.createdAt),
    check('bank_notifications_status_ck', sql`${t.status} IN ('matched', 'unmatched', 'late', 'assigned')`),
  ],
);

import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the devices module: only src/rails/devices/ reads and writes them (docs/architecture.md).

/** A phone's health as its last heartbeat reported it (docs/decisions.md section 24). */
export interface DeviceHealthColumn {
  battery_percent?: number;
  charging?: boolean;
  connection?: string;
}

/** Secrets of a device kept for a rotation's grace period (docs/decisions.md section 24). */
export interface PreviousSecretsColumn {
  tokenDigest: string;
  signingKeySealed: string | null;
  nativeSecretSealed: string | null;
  /** ISO 8601: the old secrets stop working after this time. */
  validUntil: string;
}

/**
 * Requisite holders' phones that report incoming bank transfers (docs/decisions.md section 24). The bearer token
 * (SmsForwarder and the pre-parsed endpoint) is kept as a digest; the two HMAC keys (SMS Gateway's
 * signing key, the native secret) are sealed under the master key because verifying needs them.
 */
export const holderDevices = pgTable('holder_devices', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** The holder whose phone it is (docs/decisions.md "Holders' money"); null until assigned. */
  holderId: uuid('holder_id'),
  tokenDigest: text('token_digest').notNull().unique(),
  signingKeySealed: text('signing_key_sealed'),
  nativeSecretSealed: text('native_secret_sealed'),
  previousSecrets: jsonb('previous_secrets').$type<PreviousSecretsColumn>(),
  /**
   * The requisites it was bound to before bindings moved to `device_requisites` (docs/decisions.md section 24: one
   * device per requisite); the ones another device kept are listed to operators as not bound.
   */
  requisiteIds: jsonb('requisite_ids').$type<string[]>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  revokedAt: ts('revoked_at'),
  lastSeenAt: ts('last_seen_at'),
  /** Liveness pausing applies once a device has sent a heartbeat (SmsForwarder sends none). */
  lastHeartbeatAt: ts('last_heartbeat_at'),
  health: jsonb('health').$type<DeviceHealthColumn>(),
  /** The one-time pairing link: digest of its code, the answer sealed with the code, its expiry. */
  pairingDigest: text('pairing_digest').unique(),
  pairingSealed: text('pairing_sealed'),
  pairingExpiresAt: ts('pairing_expires_at'),
  /**
   * When the current pairing link was claimed (docs/decisions.md "The pairing page"): its sealed
   * answer is gone, its digest stays so that a second claim is told the link was used.
   */
  pairingClaimedAt: ts('pairing_claimed_at'),
  createdAt: createdAt(),
});

/** Which device's messages may confirm a requisite's orders: at most one per requisite (docs/decisions.md section 24). */
export const deviceRequisites = pgTable(
  'device_requisites',
  {
    requisiteId: uuid('requisite_id').primaryKey(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => holderDevices.id),
    boundAt: ts('bound_at').notNull().defaultNow(),
  },
  (t) => [index('device_requisites_device_idx').on(t.deviceId)],
);

/**
 * Every authentic SMS or push a device sent (docs/decisions.md section 24), and what came of it. `transport_key` is our
 * hash of device, channel, source, receive time and text: the app's retries and duplicates hit
 * the unique index. An order is paid by at most one message (the partial unique index on
 * `order_id`); a message names at most one order.
 */
export const deviceEvents = pgTable(
  'device_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => holderDevices.id),
    transportKey: text('transport_key').notNull(),
    /** sms_gateway, sms_forwarder, native, or system (a review item the service raised itself). */
    app: text('app').notNull(),
    channel: text('channel').$type<'sms' | 'push' | 'system'>().notNull(),
    source: text('source').notNull(),
    title: text('title'),
    /** The raw text; null for messages that are not a bank's (private messages are not kept). */
    text: text('text'),
    receivedAt: ts('received_at').notNull(),
    bankCode: text('bank_code'),
    /** parsed, unparsed, ambiguous (section 2). */
    parse: text('parse'),
    kind: text('kind'),
    ruleId: text('rule_id'),
    fields: jsonb('fields').$type<Record<string, string>>(),
    amount: numeric('amount'),
    requisiteId: uuid('requisite_id'),
    status: text('status')
      .$type<'confirmed' | 'review' | 'assigned' | 'dismissed' | 'paired' | 'ignored' | 'block' | 'alert'>()
      .notNull(),
    reason: text('reason'),
    orderId: text('order_id'),
    pairedEventId: uuid('paired_event_id'),
    resolvedBy: text('resolved_by'),
    resolvedAt: ts('resolved_at'),
    resolution: text('resolution'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('device_events_transport_uq').on(t.deviceId, t.transportKey),
    uniqueIndex('device_events_paid_order_uq')
      .on(t.orderId)
      .where(sql`${t.status} IN ('confirmed', 'assigned')`),
    index('device_events_status_idx').on(t.status, t.createdAt),
    index('device_events_requisite_idx').on(t.requisiteId, t.receivedAt),
    check(
      'device_events_status_ck',
      sql`${t.status} IN ('confirmed', 'review', 'assigned', 'dismissed', 'paired', 'ignored', 'block', 'alert')`,
    ),
    check('device_events_channel_ck', sql`${t.channel} IN ('sms', 'push', 'system')`),
  ],
);

/** Bank notifications from devices and how each was matched (never guessed: unmatched ones wait for operators). */
export const bankNotifications = pgTable(
  'bank_notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => holderDevices.id),
    messageId: text('message_id').notNull(),
    requisiteId: uuid('requisite_id').notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    receivedAt: ts('received_at').notNull(),
    text: text('text'),
    status: text('status').$type<'matched' | 'unmatched' | 'late' | 'assigned'>().notNull(),
    /** Why it is unmatched: no_order, ambiguous, late, device_not_bound. */
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

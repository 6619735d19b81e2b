import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { DeviceSetupSchema } from './device-endpoint-schemas.js';

// Answers of the devices' and the operators' routes (devices-routes.ts), exactly as
// devices-service.ts builds them (and pool-service.ts for a published offer).

const notificationFields = {
  id: Type.String(),
  message_id: Type.String(),
  requisite_id: Type.String(),
  amount: Type.String({ description: 'A decimal string' }),
  currency: Type.String(),
  received_at: Type.String({ description: 'ISO 8601 UTC' }),
  text: Nullable(Type.String()),
  status: Type.Union([
    Type.Literal('matched'),
    Type.Literal('unmatched'),
    Type.Literal('late'),
    Type.Literal('assigned'),
  ]),
  reason: Nullable(Type.String({ description: 'Why it is unmatched: no_order, ambiguous, late' })),
  order_id: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
};

/** A stored pre-parsed bank notification and how it was matched (`GET /admin/notifications`). */
export const NotificationSchema = Type.Object(notificationFields);

/** `POST /admin/devices` and `.../rotate`: the device with every app's setup and the pairing link, shown once. */
export const DeviceCreatedSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  requisite_ids: Type.Array(Type.String()),
  ...DeviceSetupSchema.properties,
  pairing: Type.Object({
    url: Type.String({ description: 'One-time link with the same setup, for the phone' }),
    expires_at: Type.String({ description: 'ISO 8601 UTC, 15 minutes after issue' }),
  }),
});

/** A device as operators see it (`GET /admin/devices`). */
export const DeviceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  holder_id: Nullable(Type.String({ description: 'The holder whose phone it is; null: not assigned' })),
  state: Type.Union(
    ['never_seen', 'online', 'stale', 'offline', 'revoked'].map((s) => Type.Literal(s)),
    {
      description: 'online: an event within 3 min; stale: 3-10 min; offline: over 10 min',
    },
  ),
  last_seen_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  last_heartbeat_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  health: Nullable(
    Type.Object({
      battery_percent: Type.Optional(Type.Number()),
      charging: Type.Optional(Type.Boolean()),
      connection: Type.Optional(Type.String({ description: "The app's connection check: pass, warn, fail" })),
    }),
  ),
  requisite_ids: Type.Array(Type.String()),
  unbound_legacy_requisite_ids: Type.Array(Type.String(), {
    description: 'Requisites it listed before one-device-per-requisite that another device keeps',
  }),
  warnings: Type.Array(
    Type.Union(
      ['low_battery', 'no_connection', 'deaf', 'unbound_legacy_requisites'].map((s) => Type.Literal(s)),
    ),
  ),
  rotation_grace_until: Nullable(Type.String({ description: 'The previous secrets work until then' })),
  pairing_claimed_at: Nullable(
    Type.String({ description: 'When the holder claimed the latest pairing link (null: not yet)' }),
  ),
  revoked_at: Nullable(Type.String()),
  created_at: Type.String(),
});

/** A device event (`GET /admin/device-events`, assign, dismiss). */
export const DeviceEventSchema = Type.Object({
  id: Type.String(),
  device_id: Type.String(),
  app: Type.String({ description: 'sms_gateway, sms_forwarder, native, system' }),
  channel: Type.String({ description: 'sms, push, system' }),
  source: Type.String({ description: 'SMS sender id or app package' }),
  title: Nullable(Type.String()),
  text: Nullable(Type.String({ description: "The raw text; null for messages that are not a bank's" })),
  received_at: Type.String(),
  bank_code: Nullable(Type.String()),
  parse: Nullable(Type.String({ description: 'parsed, unparsed ("new message format"), ambiguous' })),
  kind: Nullable(Type.String({ description: 'credit, debit, block, otp, info' })),
  rule_id: Nullable(Type.String()),
  fields: Nullable(Type.Record(Type.String(), Type.String())),
  amount: Nullable(Type.String({ description: 'A decimal string' })),
  requisite_id: Nullable(Type.String()),
  status: Type.String({
    description: 'confirmed, review, assigned, dismissed, paired, ignored, block, alert',
  }),
  reason: Nullable(Type.String()),
  order_id: Nullable(Type.String()),
  paired_event_id: Nullable(Type.String()),
  resolved_by: Nullable(Type.String()),
  resolved_at: Nullable(Type.String()),
  resolution: Nullable(Type.String()),
  created_at: Type.String(),
  candidates: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String({ description: 'The internal id' }),
        order_id: Type.String({ description: "The merchant's order_id" }),
        amount: Type.String(),
        status: Type.String({ description: 'pending, or error (ended within the last day)' }),
        expires_at: Nullable(Type.String()),
      }),
      {
        description:
          'Review items: the orders it could pay (same requisite and amount, pending or ended within a day)',
      },
    ),
  ),
});

/** `POST /trader/offers`: the offer published (the pool module's `publishOffer` answer). */
export { PublishedOfferSchema } from '../../modules/pool/index.js';

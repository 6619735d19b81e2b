import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

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

/** A bank notification and how it was matched (`GET /admin/notifications`, assign). */
export const NotificationSchema = Type.Object(notificationFields);

/**
 * `POST /trader/notifications`: the stored notification; `duplicate` when the device sent the same
 * `message_id` before (then the first one's outcome).
 */
export const NotificationIngestedSchema = Type.Object({
  duplicate: Type.Boolean(),
  ...Type.Partial(NotificationSchema).properties,
});

/** `POST /admin/devices`: the device with its token, shown once. */
export const DeviceCreatedSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  requisite_ids: Type.Array(Type.String()),
  token: Type.String({ description: 'dev_...; shown once' }),
});

/** `POST /trader/offers`: the offer published (the pool module's `publishOffer` answer). */
export { PublishedOfferSchema } from '../pool/index.js';

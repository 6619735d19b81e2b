import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { EVENT_TYPES } from './event-types.js';

/** An event type (docs/api.md "Event subscriptions"). */
export const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((e) => Type.Literal(e)),
  { description: 'An event type (docs/api.md "Event subscriptions")' },
);

/** One delivery attempt. */
export const DeliveryAttemptSchema = Type.Object({
  attempt: Type.Integer(),
  started_at: Type.String({ description: 'ISO 8601 UTC' }),
  status_code: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error: Nullable(Type.String()),
  response: Nullable(Type.String({ description: 'The first 1 KB of the answer' })),
});

/** A webhook delivery with its attempts (`GET /admin/webhooks`, resend; webhooks-service.ts `deliveryView`). */
export const DeliverySchema = Type.Object({
  id: Type.String(),
  order_id: Type.Union([Type.String(), Type.Null()], { description: 'null for a test event' }),
  merchant_id: Type.String(),
  url: Type.String(),
  body: Type.String({ description: 'The exact JSON text sent and signed' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('exhausted')]),
  attempts: Type.Integer({ description: 'Tries made so far' }),
  next_attempt_at: Nullable(Type.String({ description: 'ISO 8601 UTC; only while pending' })),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  resend_of: Nullable(Type.String()),
  event_type: Type.Union([EventTypeSchema, Type.Null()], {
    description: 'An event subscription delivery: its type; null: the success webhook',
  }),
  event_id: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  delivered_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  attempt_log: Type.Array(DeliveryAttemptSchema),
});

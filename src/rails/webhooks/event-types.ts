import { Type } from '@sinclair/typebox';
import type { OrderMove } from '../../modules/orders/index.js';

/**
 * The events a merchant may subscribe an endpoint to (docs/decisions.md section 26), beyond the contract's
 * success webhook, which stays exactly as it is. docs/api.md "Event subscriptions" has one example
 * body each.
 */
export const EVENT_TYPES = [
  'order.expired',
  'order.cancelled',
  'order.late_payment',
  'payout.sent',
  'payout.failed',
  'receipt.accepted',
  'receipt.rejected',
  'appeal.opened',
  'appeal.resolved',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The event of an order's move, if it has one: a payout that succeeded is `payout.sent`, one that
 * failed `payout.failed`; a PAYIN that expired is `order.expired`, one failed otherwise (an operator
 * or the merchant cancelled it) `order.cancelled`, and a failed PAYIN that succeeds after all (a late
 * payment confirmed) `order.late_payment`. A PAYIN's ordinary success has the contract's webhook.
 */
export function eventOfMove(
  move: Pick<OrderMove, 'from' | 'to' | 'reason'> & { direction: string },
): EventType | undefined {
  if (move.direction === 'PAYOUT') return move.to === 'success' ? 'payout.sent' : 'payout.failed';
  if (move.to === 'error') return move.reason === 'expired' ? 'order.expired' : 'order.cancelled';
  return move.from === 'error' ? 'order.late_payment' : undefined;
}

/**
 * An event body: `{id, type, created_at, livemode, data: {order, ...extra}}`, `id` a UUID the receiver
 * de-duplicates on (a resend keeps it), `created_at` ISO 8601 UTC, `order` the object
 * `GET /merchant/order/{id}` answers.
 */
export function eventBody(event: {
  id: string;
  type: EventType;
  at: Date;
  order: unknown;
  /** False for a sandbox order's event (docs/decisions.md section 29), as Stripe's `livemode`. */
  livemode: boolean;
  extra?: Record<string, unknown>;
}): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.at.toISOString(),
    livemode: event.livemode,
    data: { order: event.order, ...event.extra },
  });
}

/** The event body as the OpenAPI document shows it. */
export const EventBodySchema = Type.Object({
  id: Type.String({ description: 'The event id (UUID): de-duplicate on it' }),
  type: Type.String({ description: 'The event type' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  livemode: Type.Boolean({ description: 'false: about a sandbox (test) order' }),
  data: Type.Object({
    order: Type.Object({}, { additionalProperties: true, description: 'As GET /merchant/order/{id}' }),
    test: Type.Optional(Type.Boolean({ description: 'A test event sent from the API or the portal' })),
  }),
});

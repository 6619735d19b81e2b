/**
 * Event subscriptions (docs/api.md "Event subscriptions"): typed bodies of the events an endpoint may
 * subscribe to, and `parseEvent`, which verifies the signature before it parses anything.
 */

import { verifyWebhook } from './signature.js';
import type { OrderInfo } from './types.js';

/** Every event type an endpoint may subscribe to (the success webhook stays as the contract has it). */
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

/** A receipt as the receipt events carry it. */
export interface EventReceipt {
  id: string;
  status: 'accepted' | 'rejected';
  /** The operator's reason of a rejection. */
  reason: string | null;
}

/** An appeal (late-payment claim) as the appeal events carry it. */
export interface EventAppeal {
  id: string;
  order_id: string;
  receipt_id: string;
  opened_by: 'payer' | 'merchant';
  status: 'open' | 'accepted' | 'rejected';
  /** ISO 8601 UTC. */
  deadline_at: string;
  reason: string | null;
  resolved_at: string | null;
  created_at: string;
}

interface EventBase<T extends EventType, D> {
  /** De-duplicate on it: a retry or a resend carries the same id. */
  id: string;
  type: T;
  /** ISO 8601 UTC. */
  created_at: string;
  /** false: about a sandbox (test) order, signed with your test key. */
  livemode: boolean;
  /** `order` is what `GET /merchant/order/{id}` answers; `test: true` on a "send test event". */
  data: D & { order: OrderInfo; test?: true };
}

/** One event body, told apart by `type`. */
export type MerchantEvent =
  | EventBase<'order.expired' | 'order.cancelled' | 'order.late_payment', object>
  | EventBase<'payout.sent' | 'payout.failed', object>
  | EventBase<'receipt.accepted' | 'receipt.rejected', { receipt: EventReceipt }>
  | EventBase<'appeal.opened' | 'appeal.resolved', { appeal: EventAppeal }>;

/** Thrown by `parseEvent` for a body that is not a signed event of ours. */
export class EventVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventVerificationError';
  }
}

/**
 * Verifies the `x-api-key` header of a delivery over its raw bytes (before any JSON parsing), then
 * parses the event. Give every key that may sign: during a key rotation and for the sandbox (whose
 * deliveries are signed with the test key) pass both. Throws EventVerificationError when no key
 * signed it or the body is not an event.
 */
export function parseEvent(
  rawBody: string | Uint8Array,
  signature: string | undefined | null,
  apiKeys: string | readonly string[],
): MerchantEvent {
  const keys = typeof apiKeys === 'string' ? [apiKeys] : apiKeys;
  if (!keys.some((key) => verifyWebhook(rawBody, signature, key)))
    throw new EventVerificationError('the signature matches none of the given keys');
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new EventVerificationError('the body is not JSON');
  }
  const event = body as Partial<MerchantEvent> | null;
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.id !== 'string' ||
    !(EVENT_TYPES as readonly string[]).includes(String(event.type)) ||
    typeof event.data !== 'object'
  )
    throw new EventVerificationError('the body is not an event (a success webhook has no `type` of ours)');
  return event as MerchantEvent;
}

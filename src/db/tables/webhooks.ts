import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { orders } from './orders.js';

// Tables of the webhooks module: only src/rails/webhooks/ reads and writes them (docs/architecture.md).

/**
 * Webhook outbox (docs/decisions.md section 11): one row per delivery, written in the transaction that
 * made the order successful. `body` is the exact JSON sent; the signature is made at send time with
 * the merchant's current key. A claimed row carries a lease (`lockedUntil`, `lockToken`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The order the body is about; null only for a test event (docs/decisions.md section 26). */
    orderId: text('order_id').references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    url: text('url').notNull(),
    body: text('body').notNull(),
    status: text('status').$type<'pending' | 'delivered' | 'exhausted'>().notNull().default('pending'),
    /** Tries made so far (the first try plus retries). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull(),
    lockedUntil: ts('locked_until'),
    lockToken: uuid('lock_token'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    resendOf: uuid('resend_of'),
    /** An event subscription's delivery: its type (`order.expired`...); null: the contract's success webhook. */
    eventType: text('event_type'),
    /** The event's id as its body carries it (the receiver's de-duplication key). */
    eventId: uuid('event_id'),
    /** The subscription it was sent for (null: the success webhook). */
    subscriptionId: uuid('subscription_id'),
    /** A sandbox delivery (docs/decisions.md section 29): about a test order, signed with the test key. */
    test: boolean('test').notNull().default(false),
    createdAt: createdAt(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    index('webhook_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_order_idx').on(t.orderId),
    index('webhook_merchant_idx').on(t.merchantId, t.createdAt),
    check('webhook_deliveries_status_ck', sql`${t.status} IN ('pending', 'delivered', 'exhausted')`),
    check('webhook_deliveries_attempts_ck', sql`${t.attempts} >= 0`),
  ],
);

/** Every delivery attempt: when, answer status, latency, error or the first 1 KB of the answer. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptNo: integer('attempt_no').notNull(),
    startedAt: ts('started_at').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    responseSnippet: text('response_snippet'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId)],
);

/**
 * A merchant's event subscription (docs/decisions.md section 26): an endpoint that gets the events it names,
 * signed and retried like the success webhook, through the same outbox.
 */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: text('merchant_id').notNull(),
    url: text('url').notNull(),
    /** Event types, e.g. ["order.expired", "payout.sent"]. */
    events: jsonb('events').$type<string[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /**
     * The mode of the key that made it: a test subscription gets test (sandbox) orders' events only,
     * a live one live events only (docs/decisions.md section 36).
     */
    test: boolean('test').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_subscriptions_merchant_idx').on(t.merchantId, t.test)],
);

import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { orders } from './orders.js';

// Tables of the webhooks module: only src/modules/webhooks/ reads and writes them (docs/architecture.md).

/**
 * Webhook outbox (docs/decisions.md section 11): one row per delivery, written in the transaction that
 * made the order successful. `body` is the exact JSON sent; the signature is made at send time with
 * the merchant's current key. A claimed row carries a lease (`lockedUntil`, `lockToken`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
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
    createdAt: createdAt(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    index('webhook_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_order_idx').on(t.orderId),
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

import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the merchants module: only src/modules/merchants/ reads and writes them (docs/architecture.md).

/** Per-type amount limits of a merchant: `{ "<type>": { "min"?: "100", "max"?: "50000" } }`. */
export type TypeLimits = Record<string, { min?: string; max?: string }>;

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    enabled: boolean('enabled').notNull().default(true),
    currencies: jsonb('currencies').$type<string[]>().notNull(),
    paymentTypes: jsonb('payment_types').$type<string[]>().notNull(),
    payinFeePercent: numeric('payin_fee_percent').notNull().default('0'),
    payinFeePercentByType: jsonb('payin_fee_percent_by_type')
      .$type<Record<string, string>>()
      .notNull()
      .default({}),
    payoutFeePercent: numeric('payout_fee_percent').notNull().default('0'),
    allowUsdt: boolean('allow_usdt').notNull().default(false),
    defaultAmountUp: integer('default_amount_up').notNull().default(0),
    defaultAmountDown: integer('default_amount_down').notNull().default(0),
    limits: jsonb('limits').$type<TypeLimits>().notNull().default({}),
    orderTtlSeconds: integer('order_ttl_seconds').notNull().default(900),
    cryptoOrderTtlSeconds: integer('crypto_order_ttl_seconds').notNull().default(3600),
    payinRateLimitPerSecond: integer('payin_rate_limit_per_second').notNull().default(10),
    settlement: text('settlement').$type<'fiat' | 'usdt'>().notNull().default('fiat'),
    /** Crypto PAYIN rate markup percent (docs/decisions.md section 6); null: RATE_MARKUP_PAYIN_PERCENT. */
    rateMarkupPercent: numeric('rate_markup_percent'),
    /** The name the payment form shows payers (docs/decisions.md section 31); null: the form names no shop. */
    displayName: text('display_name'),
    /** An https URL of the shop's logo, shown on the payment form (docs/decisions.md section 31). */
    logoUrl: text('logo_url'),
    /** Where the form's "back to the shop" button leads when the order gives no `return_url` (docs/decisions.md section 31). */
    returnUrl: text('return_url'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check(
      'merchants_fees_ck',
      sql`${t.payinFeePercent} >= 0 AND ${t.payinFeePercent} < 100 AND ${t.payoutFeePercent} >= 0 AND ${t.payoutFeePercent} < 100`,
    ),
    check(
      'merchants_settings_ck',
      sql`${t.orderTtlSeconds} > 0 AND ${t.cryptoOrderTtlSeconds} > 0 AND ${t.payinRateLimitPerSecond} > 0 AND ${t.defaultAmountUp} >= 0 AND ${t.defaultAmountDown} >= 0`,
    ),
    check('merchants_settlement_ck', sql`${t.settlement} IN ('fiat', 'usdt')`),
    check(
      'merchants_rate_markup_ck',
      sql`${t.rateMarkupPercent} IS NULL OR (${t.rateMarkupPercent} >= 0 AND ${t.rateMarkupPercent} < 50)`,
    ),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** SHA-256 hex of the key: how a request's `client-api-key` is looked up. */
    keyDigest: text('key_digest').notNull(),
    /** AES-256-GCM of the key under SECRET_KEY, for signing webhooks. */
    keyCiphertext: text('key_ciphertext').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
    /**
     * A key replaced with a grace period (docs/decisions.md section 28: rotation without downtime) still authenticates
     * until this time; it never signs webhooks again. Null: the current key, or revoked outright.
     */
    expiresAt: ts('expires_at'),
    /**
     * `test`: a sandbox key (docs/decisions.md section 29): its calls make and see only test orders, and it
     * signs those orders' webhooks; `live`: every other key.
     */
    mode: text('mode').$type<'live' | 'test'>().notNull().default('live'),
    /**
     * When a request last authenticated with this key, to the minute (written at most once a minute
     * per key and process): the portal's keys page shows it.
     */
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('api_keys_digest_uq').on(t.keyDigest),
    index('api_keys_merchant_idx').on(t.merchantId),
    check('api_keys_mode_ck', sql`${t.mode} IN ('live', 'test')`),
  ],
);

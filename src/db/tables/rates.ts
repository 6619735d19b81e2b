import { sql } from 'drizzle-orm';
import { bigserial, check, index, jsonb, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from '../columns.js';

// Tables of the rates module: only src/modules/rates/ reads and writes them (docs/architecture.md).

/**
 * Operators' manual rates (docs/decisions.md section 6): one per pair; while unexpired it wins over
 * the sources. `expires_at` null: the rate expires RATE_MAX_AGE after `updated_at`.
 */
export const rates = pgTable(
  'rates',
  {
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    /** Units of `quote` for one `base`, e.g. USDT/RUB = 92.5. */
    rate: numeric('rate').notNull(),
    source: text('source').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /** Set by `PUT /admin/rates` with `ttl_seconds`; null: `updated_at` + RATE_MAX_AGE. */
    expiresAt: ts('expires_at'),
  },
  (t) => [primaryKey({ columns: [t.base, t.quote] }), check('rates_rate_ck', sql`${t.rate} > 0`)],
);

/** The latest quote of each rate source (coingecko, rapira, cbr, provider) per pair, with its fetch time. */
export const rateQuotes = pgTable(
  'rate_quotes',
  {
    source: text('source').notNull(),
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    /** Units of `quote` for one `base`. */
    rate: numeric('rate').notNull(),
    /** When this service read it from the source (not the source's own date). */
    fetchedAt: ts('fetched_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.base, t.quote] }),
    check('rate_quotes_rate_ck', sql`${t.rate} > 0`),
  ],
);

/** One source quote as a history row keeps it: what the effective rate was computed from. */
export interface RateHistorySource {
  source: string;
  rate: string;
  /** ISO 8601 UTC fetch time. */
  at: string;
}

/**
 * Every change of a pair's effective rate (docs/decisions.md section 22, for disputes): `kind` override (an
 * operator's rate), median (of `sources`) or none (no fresh source: `rate` null).
 */
export const rateHistory = pgTable(
  'rate_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    kind: text('kind').$type<'override' | 'median' | 'none'>().notNull(),
    rate: numeric('rate'),
    sources: jsonb('sources').$type<RateHistorySource[]>().notNull(),
    /** The override's expiry when `kind` is override. */
    expiresAt: ts('expires_at'),
    actor: text('actor'),
    recordedAt: ts('recorded_at').notNull(),
  },
  (t) => [
    index('rate_history_pair_idx').on(t.base, t.quote, t.id),
    check('rate_history_kind_ck', sql`${t.kind} IN ('override', 'median', 'none')`),
  ],
);

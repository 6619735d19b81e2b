import { sql } from 'drizzle-orm';
import { check, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from '../columns.js';

// Tables of the rates module: only src/modules/rates/ reads and writes them (docs/architecture.md).

export const rates = pgTable(
  'rates',
  {
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    /** Units of `quote` for one `base`, e.g. USDT/RUB = 92.5. */
    rate: numeric('rate').notNull(),
    source: text('source').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.base, t.quote] }), check('rates_rate_ck', sql`${t.rate} > 0`)],
);

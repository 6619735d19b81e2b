import type { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { rates } from '../../db/tables/rates.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { writeAudit } from '../audit/index.js';

const CODE = /^[A-Z]{3,5}$/;

/**
 * Exchange rates (docs/decisions.md section 6): (base, quote, rate, source, updated_at); a rate older than
 * RATE_MAX_AGE counts as missing.
 */
export function createRatesService(deps: { database: Database; clock: Clock; maxAgeSeconds: number }) {
  const { clock, maxAgeSeconds } = deps;
  const db = deps.database.db;

  return {
    /** Sets `rate` = units of `quote` per one `base` (e.g. USDT/RUB 92.5); audited. */
    async set(
      input: { base: string; quote: string; rate: string | number },
      actor: AdminActor,
      source = 'operator',
    ) {
      if (!CODE.test(input.base)) throw invalidField('base', 'must be a currency code like USDT');
      if (!CODE.test(input.quote)) throw invalidField('quote', 'must be a currency code like RUB');
      const text = String(input.rate);
      if (!/^\d{1,15}(\.\d{1,12})?$/.test(text) || money(text).lte(0))
        throw invalidField('rate', 'must be a positive number');
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const before = await tx
          .select()
          .from(rates)
          .where(and(eq(rates.base, input.base), eq(rates.quote, input.quote)));
        const row = {
          base: input.base,
          quote: input.quote,
          rate: money(text).toFixed(),
          source,
          updatedAt: now,
        };
        await tx
          .insert(rates)
          .values(row)
          .onConflictDoUpdate({
            target: [rates.base, rates.quote],
            set: { rate: row.rate, source, updatedAt: now },
          });
        await writeAudit(tx, actor, {
          action: 'rate.set',
          targetType: 'rate',
          targetId: `${input.base}/${input.quote}`,
          before: before[0] ?? null,
          after: row,
        });
        return { base: row.base, quote: row.quote, rate: row.rate, source, updated_at: now.toISOString() };
      });
    },

    /** Stores rates from the provider (source "provider"); the provider's own log is its trail. */
    async setFromProvider(list: Array<{ base: string; quote: string; rate: string }>) {
      const now = new Date(clock.now());
      for (const r of list) {
        await db
          .insert(rates)
          .values({ ...r, rate: money(r.rate).toFixed(), source: 'provider', updatedAt: now })
          .onConflictDoUpdate({
            target: [rates.base, rates.quote],
            set: { rate: money(r.rate).toFixed(), source: 'provider', updatedAt: now },
          });
      }
      return list.length;
    },

    async list() {
      const rows = await db.select().from(rates).orderBy(rates.base, rates.quote);
      const now = clock.now();
      return rows.map((r) => ({
        base: r.base,
        quote: r.quote,
        rate: r.rate,
        source: r.source,
        updated_at: r.updatedAt.toISOString(),
        fresh: now - r.updatedAt.getTime() <= maxAgeSeconds * 1000,
      }));
    },

    /** The fresh `base/quote` rate, or undefined when none or older than RATE_MAX_AGE. */
    async fresh(ex: Executor, base: string, quote: string): Promise<Decimal | undefined> {
      const rows = await ex
        .select()
        .from(rates)
        .where(and(eq(rates.base, base), eq(rates.quote, quote)))
        .limit(1);
      const row = rows[0];
      if (!row || clock.now() - row.updatedAt.getTime() > maxAgeSeconds * 1000) return undefined;
      return money(row.rate);
    },
  };
}

export type RatesService = ReturnType<typeof createRatesService>;

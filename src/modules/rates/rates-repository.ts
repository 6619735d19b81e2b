import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { type RateHistorySource, rateHistory, rateQuotes, rates } from '../../db/tables/rates.js';
import type { StoredQuote } from './rates-rules.js';

// SQL of the rates module (its three tables, src/db/tables/rates.ts).

export type ManualRateRow = typeof rates.$inferSelect;
export type RateHistoryRow = typeof rateHistory.$inferSelect;

/** The operator's rate of a pair, if any. */
export async function findManualRate(ex: Executor, base: string, quote: string) {
  const rows = await ex
    .select()
    .from(rates)
    .where(and(eq(rates.base, base), eq(rates.quote, quote)))
    .limit(1);
  return rows[0];
}

/** Writes the operator's rate of a pair (one per pair). */
export async function upsertManualRate(ex: Executor, row: typeof rates.$inferInsert) {
  await ex
    .insert(rates)
    .values(row)
    .onConflictDoUpdate({
      target: [rates.base, rates.quote],
      set: { rate: row.rate, source: row.source, updatedAt: row.updatedAt, expiresAt: row.expiresAt ?? null },
    });
}

/** Every operator rate. */
export async function listManualRates(ex: Executor) {
  return ex.select().from(rates).orderBy(rates.base, rates.quote);
}

/** Stores the latest quote of `source` for each pair, fetched at `at`. */
export async function upsertQuotes(
  ex: Executor,
  source: string,
  list: ReadonlyArray<{ base: string; quote: string; rate: string }>,
  at: Date,
) {
  if (list.length === 0) return;
  await ex
    .insert(rateQuotes)
    .values(list.map((q) => ({ source, base: q.base, quote: q.quote, rate: q.rate, fetchedAt: at })))
    .onConflictDoUpdate({
      target: [rateQuotes.source, rateQuotes.base, rateQuotes.quote],
      set: { rate: sql`excluded.rate`, fetchedAt: sql`excluded.fetched_at` },
    });
}

/** The latest quote of every source for a pair. */
export async function quotesOf(ex: Executor, base: string, quote: string): Promise<StoredQuote[]> {
  return ex
    .select({ source: rateQuotes.source, rate: rateQuotes.rate, fetchedAt: rateQuotes.fetchedAt })
    .from(rateQuotes)
    .where(and(eq(rateQuotes.base, base), eq(rateQuotes.quote, quote)));
}

/** Every stored quote. */
export async function listQuotes(ex: Executor) {
  return ex.select().from(rateQuotes).orderBy(rateQuotes.base, rateQuotes.quote, rateQuotes.source);
}

/** The last history row of a pair. */
export async function lastHistory(ex: Executor, base: string, quote: string) {
  const rows = await ex
    .select()
    .from(rateHistory)
    .where(and(eq(rateHistory.base, base), eq(rateHistory.quote, quote)))
    .orderBy(desc(rateHistory.id))
    .limit(1);
  return rows[0];
}

/** Appends a history row. */
export async function insertHistory(
  ex: Executor,
  row: {
    base: string;
    quote: string;
    kind: 'override' | 'median' | 'none';
    rate: string | null;
    sources: RateHistorySource[];
    expiresAt: Date | null;
    actor: string | null;
    recordedAt: Date;
  },
) {
  await ex.insert(rateHistory).values(row);
}

/** A page of a pair's history, newest first: `limit` rows with an id below `beforeId` (if given). */
export async function historyPage(
  ex: Executor,
  input: { base: string; quote: string; limit: number; beforeId?: number | undefined },
) {
  const pair = and(eq(rateHistory.base, input.base), eq(rateHistory.quote, input.quote));
  return ex
    .select()
    .from(rateHistory)
    .where(input.beforeId === undefined ? pair : and(pair, lt(rateHistory.id, input.beforeId)))
    .orderBy(desc(rateHistory.id))
    .limit(input.limit);
}

/** Serialises history writers of every process (the refresh job and operators' rates). */
export async function lockHistory(ex: Executor) {
  await ex.execute(sql`SELECT pg_advisory_xact_lock(hashtext('rates-history'))`);
}

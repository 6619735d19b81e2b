import type { Decimal } from 'decimal.js';
import type { Database, Executor } from '../../db/database.js';
import type { RateHistorySource } from '../../db/tables/rates.js';
import type { Clock } from '../../lib/clock.js';
import { money } from '../../lib/money.js';
import {
  findManualRate,
  insertHistory,
  lastHistory,
  listManualRates,
  listQuotes,
  lockHistory,
  type ManualRateRow,
  quotesOf,
} from './rates-repository.js';
import { type Effective, effectiveRate, isFresh, RATE_DECIMALS, type StoredQuote } from './rates-rules.js';
import { pairView, type RatePairView } from './rates-views.js';

export interface RatesServiceDeps {
  database: Database;
  clock: Clock;
  /** RATE_MAX_AGE: an operator's rate without ttl, the provider's and the market sources' quotes. */
  maxAgeSeconds: number;
  /** Freshness limits of sources other than the markets (the CBR: RATE_CBR_MAX_AGE). */
  sourceMaxAgeSeconds?: Readonly<Record<string, number>>;
  /** RATE_MARKUP_PAYIN_PERCENT (default "0"). */
  markupPayinPercent?: string;
  /** RATE_OPERATOR_MAX_DEVIATION: percent from the sources' median without an admin's reason (default "10"). */
  operatorMaxDeviation?: string;
}

/** A currency pair: `rate` units of `quote` per one `base`. */
export type Pair = { base: string; quote: string };
/** `BASE/QUOTE`, the pair's key in maps and metrics. */
export const pairKey = (p: Pair) => `${p.base}/${p.quote}`;

/** How long a quote of `source` stays fresh, in seconds. */
export function maxAgeOf(deps: RatesServiceDeps, source: string): number {
  return deps.sourceMaxAgeSeconds?.[source] ?? deps.maxAgeSeconds;
}

/** When an operator's rate stops winning: its own expiry, else RATE_MAX_AGE after it was set. */
export function expiryOf(deps: RatesServiceDeps, row: ManualRateRow): Date {
  return row.expiresAt ?? new Date(row.updatedAt.getTime() + deps.maxAgeSeconds * 1000);
}

function compute(
  deps: RatesServiceDeps,
  nowMs: number,
  manual: ManualRateRow | undefined,
  quotes: StoredQuote[],
): Effective {
  return effectiveRate({
    nowMs,
    override: manual && { rate: manual.rate, updatedAt: manual.updatedAt, expiresAt: expiryOf(deps, manual) },
    quotes,
    maxAgeOf: (source) => maxAgeOf(deps, source),
  });
}

/** The effective rate of a pair with its sources (without markup). */
export async function effective(
  deps: RatesServiceDeps,
  ex: Executor,
  base: string,
  quote: string,
): Promise<Effective> {
  const [manual, quotes] = await Promise.all([findManualRate(ex, base, quote), quotesOf(ex, base, quote)]);
  return compute(deps, deps.clock.now(), manual, quotes);
}

/**
 * The effective `base/quote` rate (without markup), or undefined when there is none: an
 * operator's unexpired rate, else the median of the fresh source quotes; for two currencies
 * other than RUB without either, the cross rate through RUB (base/RUB / quote/RUB, e.g. USDT/KZT
 * from USDT/RUB and the CBR's KZT/RUB), rounded half up to 12 decimals.
 */
export async function freshRate(
  deps: RatesServiceDeps,
  ex: Executor,
  base: string,
  quote: string,
): Promise<Decimal | undefined> {
  const direct = await effective(deps, ex, base, quote);
  if (direct.rate) return direct.rate;
  if (base === 'RUB' || quote === 'RUB' || base === quote) return undefined;
  const [b, q] = await Promise.all([effective(deps, ex, base, 'RUB'), effective(deps, ex, quote, 'RUB')]);
  if (!b.rate || !q.rate) return undefined;
  return b.rate.dividedBy(q.rate).toDecimalPlaces(RATE_DECIMALS);
}

/** Every pair with an operator rate or a source quote, with what it is made of. */
async function pairs(ex: Executor) {
  const [manual, quotes] = await Promise.all([listManualRates(ex), listQuotes(ex)]);
  const out = new Map<string, { pair: Pair; manual?: ManualRateRow; quotes: StoredQuote[] }>();
  const entry = (p: Pair) => {
    const key = pairKey(p);
    let e = out.get(key);
    if (!e) {
      e = { pair: { base: p.base, quote: p.quote }, quotes: [] };
      out.set(key, e);
    }
    return e;
  };
  for (const m of manual) entry(m).manual = m;
  for (const q of quotes) entry(q).quotes.push({ source: q.source, rate: q.rate, fetchedAt: q.fetchedAt });
  return [...out.values()].sort((a, b) => pairKey(a.pair).localeCompare(pairKey(b.pair)));
}

/**
 * Appends a history row for each of `only` (default: every pair) whose effective rate (kind,
 * rate, override expiry) differs from its last row. One writer at a time across processes.
 */
export async function recordChanges(
  deps: RatesServiceDeps,
  ex: Executor,
  actor: string | null,
  only?: readonly Pair[],
): Promise<number> {
  await lockHistory(ex);
  const nowMs = deps.clock.now();
  const wanted = only ? new Set(only.map(pairKey)) : undefined;
  let recorded = 0;
  for (const p of await pairs(ex)) {
    if (wanted && !wanted.has(pairKey(p.pair))) continue;
    const e = compute(deps, nowMs, p.manual, p.quotes);
    const rate = e.rate ? e.rate.toFixed() : null;
    const expiresAt = e.expiresAt ?? null;
    const last = await lastHistory(ex, p.pair.base, p.pair.quote);
    if (last) {
      const same =
        last.kind === e.kind &&
        (last.rate === null ? rate === null : rate !== null && money(last.rate).eq(rate)) &&
        (last.expiresAt?.getTime() ?? null) === (expiresAt?.getTime() ?? null);
      if (same) continue;
    } else if (e.kind === 'none') continue;
    const sources: RateHistorySource[] = e.sources.map((q) => ({
      source: q.source,
      rate: money(q.rate).toFixed(),
      at: q.fetchedAt.toISOString(),
    }));
    await insertHistory(ex, {
      ...p.pair,
      kind: e.kind,
      rate,
      sources,
      expiresAt,
      actor: e.kind === 'override' ? actor : null,
      recordedAt: new Date(nowMs),
    });
    recorded++;
  }
  return recorded;
}

/**
 * Every pair (`GET /admin/rates`): the effective rate, whether it is fresh, the operator's rate
 * with its expiry, each source's quote with its age, and the age of the freshest one.
 */
export async function listPairs(deps: RatesServiceDeps): Promise<RatePairView[]> {
  const nowMs = deps.clock.now();
  return (await pairs(deps.database.db)).map((p) =>
    pairView({
      ...p,
      nowMs,
      effective: compute(deps, nowMs, p.manual, p.quotes),
      expiresAt: p.manual ? expiryOf(deps, p.manual) : undefined,
      isFresh: (q) => isFresh(q.fetchedAt, nowMs, maxAgeOf(deps, q.source)),
    }),
  );
}

/** Age in seconds of the freshest source quote of each pair that has quotes (metrics). */
export async function sourceAges(deps: RatesServiceDeps): Promise<Record<string, number>> {
  const nowMs = deps.clock.now();
  const out: Record<string, number> = {};
  for (const p of await pairs(deps.database.db)) {
    if (p.quotes.length === 0) continue;
    const newest = Math.max(...p.quotes.map((q) => q.fetchedAt.getTime()));
    out[pairKey(p.pair)] = Math.max(0, (nowMs - newest) / 1000);
  }
  return out;
}

import type { Decimal } from 'decimal.js';
import { money } from '../../lib/money.js';

/** Decimals a computed rate (a median of two, a cross rate) keeps. */
export const RATE_DECIMALS = 12;

/** A quote clock more than this ahead of ours (a clock gone wrong) is not trusted. */
export const FUTURE_SKEW_MS = 60_000;

/** A stored source quote of a pair with its fetch time. */
export interface StoredQuote {
  source: string;
  rate: string;
  fetchedAt: Date;
}

/**
 * Whether a quote fetched at `at` is fresh at `nowMs` for a limit of `maxAgeSeconds`: at most that
 * old (the limit itself still counts) and not more than a minute in the future.
 */
export function isFresh(at: Date, nowMs: number, maxAgeSeconds: number): boolean {
  const age = nowMs - at.getTime();
  return age <= maxAgeSeconds * 1000 && age >= -FUTURE_SKEW_MS;
}

/**
 * The median of positive rates: the middle one of an odd count, the mean of the two middle ones
 * of an even count (rounded half up to 12 decimals); undefined for none.
 */
export function median(rates: readonly Decimal[]): Decimal | undefined {
  if (rates.length === 0) return undefined;
  const sorted = [...rates].sort((a, b) => a.comparedTo(b));
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] as Decimal;
  if (sorted.length % 2 === 1) return upper;
  return (sorted[mid - 1] as Decimal).plus(upper).dividedBy(2).toDecimalPlaces(RATE_DECIMALS);
}

/** The effective rate of a pair and what it came from (docs/decisions.md section 6). */
export interface Effective {
  /** override: an operator's rate in force; median: of the fresh `sources`; none: no fresh rate. */
  kind: 'override' | 'median' | 'none';
  rate: Decimal | undefined;
  /** The fresh source quotes the median was taken from (with an override: those present too). */
  sources: StoredQuote[];
  /** The override's expiry (kind override). */
  expiresAt: Date | undefined;
}

/**
 * The effective rate: an operator's rate whose expiry has not passed wins; else the median of the
 * fresh quotes (each source against its own limit, `maxAgeOf`); else none.
 */
export function effectiveRate(input: {
  nowMs: number;
  override: { rate: string; updatedAt: Date; expiresAt: Date } | undefined;
  quotes: readonly StoredQuote[];
  maxAgeOf: (source: string) => number;
}): Effective {
  const { nowMs, override } = input;
  const sources = input.quotes
    .filter((q) => isFresh(q.fetchedAt, nowMs, input.maxAgeOf(q.source)))
    .sort((a, b) => a.source.localeCompare(b.source));
  if (
    override &&
    nowMs <= override.expiresAt.getTime() &&
    override.updatedAt.getTime() - nowMs <= FUTURE_SKEW_MS
  ) {
    return { kind: 'override', rate: money(override.rate), sources, expiresAt: override.expiresAt };
  }
  const rate = median(sources.map((q) => money(q.rate)));
  return { kind: rate ? 'median' : 'none', rate, sources, expiresAt: undefined };
}

/**
 * The coin/RUB rate a crypto PAYIN quote uses after a markup of `percent` (docs/decisions.md section 22): lowered by it,
 * `rate * (1 - percent / 100)` rounded half up to 12 decimals, so that the client sends more coins
 * for the same rubles. 0 leaves the rate as it is.
 */
export function applyPayinMarkup(rate: Decimal, percent: string): Decimal {
  const p = money(percent);
  if (p.isZero()) return rate;
  return rate.times(money(100).minus(p).dividedBy(100)).toDecimalPlaces(RATE_DECIMALS);
}

/** The markup percent of a merchant: its own setting when it has one, else the service default. */
export function payinMarkupPercent(
  merchantPercent: string | null | undefined,
  defaultPercent: string,
): string {
  return merchantPercent ?? defaultPercent;
}

/**
 * Rates no operator can mean (docs/decisions.md section 34): each pair's band, about 10 to 100 times
 * either side of its price in 2025, so that a fat finger (a missing decimal point, a rate typed for
 * the wrong pair, 999999999999999 USDT/RUB) is refused while real moves fit. A pair not listed takes
 * DEFAULT_BOUNDS. Units of quote per one base, decimal text.
 */
export const RATE_SANITY_BOUNDS: Readonly<Record<string, readonly [string, string]>> = {
  'USDT/RUB': ['10', '1000'],
  'USD/RUB': ['10', '1000'],
  'EUR/RUB': ['10', '1000'],
  'BTC/RUB': ['100000', '1000000000'],
  'ETH/RUB': ['1000', '100000000'],
  'BNB/RUB': ['100', '10000000'],
  'LTC/RUB': ['10', '1000000'],
  'TON/RUB': ['1', '100000'],
  'BTC/USDT': ['1000', '10000000'],
  'ETH/USDT': ['10', '1000000'],
};
/** The band of a pair without its own: anything a currency pair could be, but not an absurd value. */
export const DEFAULT_BOUNDS: readonly [string, string] = ['0.000001', '1000000000'];

/** The sanity band of `base/quote` (RATE_SANITY_BOUNDS, else DEFAULT_BOUNDS). */
export function sanityBounds(base: string, quote: string): { min: Decimal; max: Decimal } {
  const [min, max] = RATE_SANITY_BOUNDS[`${base}/${quote}`] ?? DEFAULT_BOUNDS;
  return { min: money(min), max: money(max) };
}

/** How far `rate` is from `reference`, in percent of the reference (2 decimals, half up). */
export function deviationPercent(rate: Decimal, reference: Decimal): Decimal {
  return rate.minus(reference).abs().times(100).dividedBy(reference).toDecimalPlaces(2);
}

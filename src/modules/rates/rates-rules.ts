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
 * The coin/RUB rate a crypto PAYIN quote uses after a markup of `percent` (issue 20): lowered by it,
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

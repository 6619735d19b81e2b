import { money } from '../../lib/money.js';
import type { ManualRateRow } from './rates-repository.js';
import type { Effective, StoredQuote } from './rates-rules.js';

/** One pair as `GET /admin/rates` answers it (rates-admin-schemas.ts `RatePairSchema`). */
export interface RatePairView {
  base: string;
  quote: string;
  rate: string | null;
  source: 'operator' | 'median' | 'none';
  updated_at: string | null;
  fresh: boolean;
  stale: boolean;
  override: { rate: string; updated_at: string; expires_at: string; active: boolean } | null;
  sources: Array<{ source: string; rate: string; fetched_at: string; age_seconds: number; fresh: boolean }>;
  freshest_source_age_seconds: number | null;
}

const ageSeconds = (nowMs: number, at: Date) => Math.max(0, Math.round((nowMs - at.getTime()) / 1000));

/** Builds a pair's admin view from its operator rate, its quotes and its computed effective rate. */
export function pairView(input: {
  pair: { base: string; quote: string };
  manual?: ManualRateRow | undefined;
  quotes: StoredQuote[];
  nowMs: number;
  effective: Effective;
  expiresAt: Date | undefined;
  isFresh: (q: StoredQuote) => boolean;
}): RatePairView {
  const { manual, quotes, nowMs, effective: e } = input;
  const newest = quotes.reduce<Date | undefined>(
    (acc, q) => (!acc || q.fetchedAt > acc ? q.fetchedAt : acc),
    undefined,
  );
  const newestFresh = e.sources.reduce<Date | undefined>(
    (acc, q) => (!acc || q.fetchedAt > acc ? q.fetchedAt : acc),
    undefined,
  );
  const updatedAt = e.kind === 'override' ? manual?.updatedAt : e.kind === 'median' ? newestFresh : undefined;
  return {
    base: input.pair.base,
    quote: input.pair.quote,
    rate: e.rate ? e.rate.toFixed() : null,
    source: e.kind === 'override' ? 'operator' : e.kind,
    updated_at: updatedAt?.toISOString() ?? null,
    fresh: e.kind !== 'none',
    stale: e.kind === 'none',
    override:
      manual && input.expiresAt
        ? {
            rate: money(manual.rate).toFixed(),
            updated_at: manual.updatedAt.toISOString(),
            expires_at: input.expiresAt.toISOString(),
            active: e.kind === 'override',
          }
        : null,
    sources: quotes
      .slice()
      .sort((a, b) => a.source.localeCompare(b.source))
      .map((q) => ({
        source: q.source,
        rate: money(q.rate).toFixed(),
        fetched_at: q.fetchedAt.toISOString(),
        age_seconds: ageSeconds(nowMs, q.fetchedAt),
        fresh: input.isFresh(q),
      })),
    freshest_source_age_seconds: newest ? ageSeconds(nowMs, newest) : null,
  };
}

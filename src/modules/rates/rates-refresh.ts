import type { Clock } from '../../lib/clock.js';
import type { RatesService } from './rates-service.js';
import type { RateSource } from './sources/index.js';

/** What one refresh did with one source. */
export type SourceOutcome =
  | { source: string; ok: true; quotes: number }
  | { source: string; ok: false; error: string }
  | { source: string; ok: null; skipped: 'not due' };

/**
 * The rate sources' poll (docs/decisions.md section 22): each source whose interval has passed is read (10 s
 * limit each, all at once); a source that fails (429, 5xx, garbage, timeout) is skipped and its
 * last quotes simply age, the others' are stored. Then every pair's effective rate is checked, so
 * that expiries and staleness are recorded in the history too.
 */
export function createRatesRefresh(deps: {
  rates: RatesService;
  clock: Clock;
  sources: readonly RateSource[];
}) {
  const lastAttempt = new Map<string, number>();
  return {
    /** The configured sources' names. */
    sourceNames: deps.sources.map((s) => s.name),

    /** Polls the due sources (all of them with `force`); answers each source's outcome. */
    async refresh(
      options: { force?: boolean } = {},
    ): Promise<{ sources: SourceOutcome[]; recorded: number }> {
      const nowMs = deps.clock.now();
      const outcomes = await Promise.all(
        deps.sources.map(async (source): Promise<SourceOutcome> => {
          const last = lastAttempt.get(source.name);
          if (!options.force && last !== undefined && nowMs - last < source.intervalSeconds * 1000)
            return { source: source.name, ok: null, skipped: 'not due' };
          lastAttempt.set(source.name, nowMs);
          try {
            const quotes = await source.fetch();
            await deps.rates.storeQuotes(source.name, quotes);
            return { source: source.name, ok: true, quotes: quotes.length };
          } catch (err) {
            return { source: source.name, ok: false, error: (err as Error).message };
          }
        }),
      );
      // One history check after every source answered: a change is recorded once, with all its sources.
      return { sources: outcomes, recorded: await deps.rates.recordAllChanges() };
    },
  };
}

export type RatesRefresh = ReturnType<typeof createRatesRefresh>;

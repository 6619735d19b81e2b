import type { Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import { money } from '../../lib/money.js';
import {
  effective,
  freshRate,
  listPairs,
  type RatesServiceDeps,
  recordChanges,
  sourceAges,
} from './rates-effective.js';
import { checkPair, type SetRateInput, setOperatorRate } from './rates-operator.js';
import { historyPage, upsertQuotes } from './rates-repository.js';
import { payinMarkupPercent } from './rates-rules.js';

export type { RatesServiceDeps } from './rates-effective.js';
export { MAX_TTL_SECONDS } from './rates-operator.js';

type Quotes = ReadonlyArray<{ base: string; quote: string; rate: string }>;

/**
 * Stores the quotes `source` answered now (one latest quote per source and pair) and records
 * the changes of those pairs' effective rates. Answers how many were stored.
 */
async function recordQuotes(deps: RatesServiceDeps, source: string, quotes: Quotes) {
  const now = new Date(deps.clock.now());
  await deps.database.db.transaction(async (tx) => {
    await upsertQuotes(tx, source, quotes, now);
    await recordChanges(deps, tx, null, quotes);
  });
  return quotes.length;
}

/** Stores the quotes `source` answered now without touching the history (a refresh records once, after every source). */
async function storeQuotes(deps: RatesServiceDeps, source: string, quotes: Quotes) {
  await upsertQuotes(deps.database.db, source, quotes, new Date(deps.clock.now()));
  return quotes.length;
}

/** A pair's history, newest first (`GET /admin/rates/history`); page on with `before_id`. */
async function history(
  deps: RatesServiceDeps,
  input: { base: string; quote: string; limit: number; before_id?: number | undefined },
) {
  checkPair(input);
  const rows = await historyPage(deps.database.db, { ...input, beforeId: input.before_id });
  return rows.map((r) => ({
    id: r.id,
    base: r.base,
    quote: r.quote,
    kind: r.kind,
    rate: r.rate === null ? null : money(r.rate).toFixed(),
    sources: r.sources,
    expires_at: r.expiresAt?.toISOString() ?? null,
    actor: r.actor,
    recorded_at: r.recordedAt.toISOString(),
  }));
}

/**
 * Exchange rates (docs/decisions.md sections 6 and 22): the latest quote of each source, operators' rates
 * with an expiry, and the effective rate of a pair: an operator's unexpired rate, else the median
 * of the fresh source quotes, else none. Every change of an effective rate is kept in the history
 * with the quotes it came from. Reading rates: rates-effective.ts; operators' rates: rates-operator.ts.
 */
export function createRatesService(deps: RatesServiceDeps) {
  const db = deps.database.db;
  return {
    /** An operator's rate (rates-operator.ts `setOperatorRate`). */
    set: (input: SetRateInput, actor: AdminActor, source = 'operator') =>
      setOperatorRate(deps, input, actor, source),
    recordQuotes: (source: string, quotes: Quotes) => recordQuotes(deps, source, quotes),
    storeQuotes: (source: string, quotes: Quotes) => storeQuotes(deps, source, quotes),
    /** The generic JSON provider's rates (RATES_PROVIDER_URL): a source named "provider". */
    setFromProvider: (list: Array<{ base: string; quote: string; rate: string }>) =>
      recordQuotes(deps, 'provider', list),
    /** Records every pair whose effective rate changed since its last history row (expiries, staleness). */
    recordAllChanges: (): Promise<number> => db.transaction((tx) => recordChanges(deps, tx, null)),
    /** The effective rate of a pair with its sources (without markup). */
    effective: (ex: Executor, base: string, quote: string) => effective(deps, ex, base, quote),
    /** The effective rate or undefined (rates-effective.ts `freshRate`). */
    fresh: (ex: Executor, base: string, quote: string) => freshRate(deps, ex, base, quote),
    list: () => listPairs(deps),
    history: (input: { base: string; quote: string; limit: number; before_id?: number | undefined }) =>
      history(deps, input),
    /** Age in seconds of the freshest source quote of each pair that has quotes (metrics). */
    sourceAges: () => sourceAges(deps),
    /** How many pairs have no effective rate now (metrics and the console's warning). */
    async stalePairs(): Promise<number> {
      return (await listPairs(deps)).filter((p) => !p.fresh).length;
    },
    /** The markup percent of a crypto PAYIN: the merchant's own, else RATE_MARKUP_PAYIN_PERCENT. */
    payinMarkupPercent(merchantPercent: string | null | undefined): string {
      return payinMarkupPercent(merchantPercent, deps.markupPayinPercent ?? '0');
    },
  };
}

export type RatesService = ReturnType<typeof createRatesService>;

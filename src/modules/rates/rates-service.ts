import type { Decimal } from 'decimal.js';
import type { Database, Executor } from '../../db/database.js';
import type { RateHistorySource } from '../../db/tables/rates.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  findManualRate,
  historyPage,
  insertHistory,
  lastHistory,
  listManualRates,
  listQuotes,
  lockHistory,
  type ManualRateRow,
  quotesOf,
  upsertManualRate,
  upsertQuotes,
} from './rates-repository.js';
import {
  deviationPercent,
  type Effective,
  effectiveRate,
  isFresh,
  median,
  payinMarkupPercent,
  RATE_DECIMALS,
  type StoredQuote,
  sanityBounds,
} from './rates-rules.js';
import { pairView, type RatePairView } from './rates-views.js';

const CODE = /^[A-Z]{3,5}$/;
const RATE_TEXT = /^\d{1,15}(\.\d{1,12})?$/;
/** The longest `ttl_seconds` of an operator's rate: 30 days. */
export const MAX_TTL_SECONDS = 30 * 86_400;

type Pair = { base: string; quote: string };
const pairKey = (p: Pair) => `${p.base}/${p.quote}`;

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

/**
 * Exchange rates (docs/decisions.md section 6; issue 20 section 2): the latest quote of each source,
 * operators' rates with an expiry, and the effective rate of a pair: an operator's unexpired rate,
 * else the median of the fresh source quotes, else none. Every change of an effective rate is kept
 * in the history with the quotes it came from.
 */
export function createRatesService(deps: RatesServiceDeps) {
  const { clock, maxAgeSeconds } = deps;
  const db = deps.database.db;
  const maxAgeOf = (source: string) => deps.sourceMaxAgeSeconds?.[source] ?? maxAgeSeconds;
  const expiryOf = (row: ManualRateRow) =>
    row.expiresAt ?? new Date(row.updatedAt.getTime() + maxAgeSeconds * 1000);

  function compute(nowMs: number, manual: ManualRateRow | undefined, quotes: StoredQuote[]): Effective {
    return effectiveRate({
      nowMs,
      override: manual && { rate: manual.rate, updatedAt: manual.updatedAt, expiresAt: expiryOf(manual) },
      quotes,
      maxAgeOf,
    });
  }

  async function effective(ex: Executor, base: string, quote: string): Promise<Effective> {
    const [manual, quotes] = await Promise.all([findManualRate(ex, base, quote), quotesOf(ex, base, quote)]);
    return compute(clock.now(), manual, quotes);
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
  async function recordChanges(ex: Executor, actor: string | null, only?: readonly Pair[]): Promise<number> {
    await lockHistory(ex);
    const nowMs = clock.now();
    const wanted = only ? new Set(only.map(pairKey)) : undefined;
    let recorded = 0;
    for (const p of await pairs(ex)) {
      if (wanted && !wanted.has(pairKey(p.pair))) continue;
      const e = compute(nowMs, p.manual, p.quotes);
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
   * Stores the quotes `source` answered now (one latest quote per source and pair) and records
   * the changes of those pairs' effective rates. Answers how many were stored.
   */
  async function recordQuotes(
    source: string,
    quotes: ReadonlyArray<{ base: string; quote: string; rate: string }>,
  ) {
    const now = new Date(clock.now());
    await db.transaction(async (tx) => {
      await upsertQuotes(tx, source, quotes, now);
      await recordChanges(tx, null, quotes);
    });
    return quotes.length;
  }

  /** Stores the quotes `source` answered now without touching the history (a refresh records once, after every source). */
  async function storeQuotes(
    source: string,
    quotes: ReadonlyArray<{ base: string; quote: string; rate: string }>,
  ) {
    await upsertQuotes(db, source, quotes, new Date(clock.now()));
    return quotes.length;
  }

  /**
   * Every pair (`GET /admin/rates`): the effective rate, whether it is fresh, the operator's rate
   * with its expiry, each source's quote with its age, and the age of the freshest one.
   */
  async function list(): Promise<RatePairView[]> {
    const nowMs = clock.now();
    return (await pairs(db)).map((p) =>
      pairView({
        ...p,
        nowMs,
        effective: compute(nowMs, p.manual, p.quotes),
        expiresAt: p.manual ? expiryOf(p.manual) : undefined,
        isFresh: (q) => isFresh(q.fetchedAt, nowMs, maxAgeOf(q.source)),
      }),
    );
  }

  return {
    /**
     * Sets an operator's rate `rate` = units of `quote` per one `base` (e.g. USDT/RUB 92.5); audited
     * and recorded in the history. It wins over the sources until it expires: `ttl_seconds` after
     * now (1 to 30 days' worth of seconds), or without it RATE_MAX_AGE after now. Bounds
     * (docs/decisions.md section 34): outside the pair's sanity band it is refused
     * (VALIDATION_ERROR naming rate); more than RATE_OPERATOR_MAX_DEVIATION percent from the median
     * of the fresh source quotes it needs the admin role (else 403 FORBIDDEN naming rate) and a
     * `reason` (else VALIDATION_ERROR naming reason), and the audit entry keeps the rate, the median
     * and the deviation. VALIDATION_ERROR naming base, quote, rate, ttl_seconds or reason.
     */
    async set(
      input: {
        base: string;
        quote: string;
        rate: string | number;
        ttl_seconds?: number | undefined;
        reason?: string | undefined;
      },
      actor: AdminActor,
      source = 'operator',
    ) {
      if (!CODE.test(input.base)) throw invalidField('base', 'must be a currency code like USDT');
      if (!CODE.test(input.quote)) throw invalidField('quote', 'must be a currency code like RUB');
      const text = String(input.rate);
      if (!RATE_TEXT.test(text) || money(text).lte(0))
        throw invalidField('rate', 'must be a positive number');
      const ttl = input.ttl_seconds;
      if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS))
        throw invalidField('ttl_seconds', `must be an integer from 1 to ${MAX_TTL_SECONDS}`);
      const now = new Date(clock.now());
      const row = {
        base: input.base,
        quote: input.quote,
        rate: money(text).toFixed(),
        source,
        updatedAt: now,
        expiresAt: ttl === undefined ? null : new Date(now.getTime() + ttl * 1000),
      };
      const bounds = sanityBounds(input.base, input.quote);
      if (money(text).lt(bounds.min) || money(text).gt(bounds.max))
        throw invalidField(
          'rate',
          `${money(text).toFixed()} is outside the sanity bounds of ${input.base}/${input.quote} (${bounds.min.toFixed()} to ${bounds.max.toFixed()}): a typing error?`,
        );
      const reason = input.reason?.trim() || null;
      return db.transaction(async (tx) => {
        const fresh = (await quotesOf(tx, input.base, input.quote)).filter((q) =>
          isFresh(q.fetchedAt, now.getTime(), maxAgeOf(q.source)),
        );
        const reference = median(fresh.map((q) => money(q.rate)));
        const deviation = reference ? deviationPercent(money(text), reference) : null;
        if (reference && deviation?.gt(deps.operatorMaxDeviation ?? '10'))
          assertMaySetFarRate(actor, reason, {
            pair: `${input.base}/${input.quote}`,
            rate: money(text),
            reference,
            deviation,
            limit: deps.operatorMaxDeviation ?? '10',
          });
        const before = await findManualRate(tx, input.base, input.quote);
        await upsertManualRate(tx, row);
        await writeAudit(tx, actor, {
          action: 'rate.set',
          targetType: 'rate',
          targetId: `${input.base}/${input.quote}`,
          before: before ?? null,
          after: {
            ...row,
            sources_median: reference?.toFixed() ?? null,
            deviation_percent: deviation?.toFixed() ?? null,
            reason,
          },
        });
        await recordChanges(tx, actor.name, [row]);
        return {
          base: row.base,
          quote: row.quote,
          rate: row.rate,
          source,
          updated_at: now.toISOString(),
          expires_at: expiryOf(row).toISOString(),
        };
      });
    },

    recordQuotes,
    storeQuotes,
    /** The generic JSON provider's rates (RATES_PROVIDER_URL): a source named "provider". */
    async setFromProvider(list: Array<{ base: string; quote: string; rate: string }>) {
      return recordQuotes('provider', list);
    },

    /** Records every pair whose effective rate changed since its last history row (expiries, staleness). */
    async recordAllChanges(): Promise<number> {
      return db.transaction((tx) => recordChanges(tx, null));
    },

    /** The effective rate of a pair with its sources (without markup). */
    effective,

    /**
     * The effective `base/quote` rate (without markup), or undefined when there is none: an
     * operator's unexpired rate, else the median of the fresh source quotes; for two currencies
     * other than RUB without either, the cross rate through RUB (base/RUB / quote/RUB, e.g. USDT/KZT
     * from USDT/RUB and the CBR's KZT/RUB), rounded half up to 12 decimals.
     */
    async fresh(ex: Executor, base: string, quote: string): Promise<Decimal | undefined> {
      const direct = await effective(ex, base, quote);
      if (direct.rate) return direct.rate;
      if (base === 'RUB' || quote === 'RUB' || base === quote) return undefined;
      const [b, q] = await Promise.all([effective(ex, base, 'RUB'), effective(ex, quote, 'RUB')]);
      if (!b.rate || !q.rate) return undefined;
      return b.rate.dividedBy(q.rate).toDecimalPlaces(RATE_DECIMALS);
    },

    list,

    /** A pair's history, newest first (`GET /admin/rates/history`); page on with `before_id`. */
    async history(input: { base: string; quote: string; limit: number; before_id?: number | undefined }) {
      if (!CODE.test(input.base)) throw invalidField('base', 'must be a currency code like USDT');
      if (!CODE.test(input.quote)) throw invalidField('quote', 'must be a currency code like RUB');
      const rows = await historyPage(db, { ...input, beforeId: input.before_id });
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
    },

    /** Age in seconds of the freshest source quote of each pair that has quotes (metrics). */
    async sourceAges(): Promise<Record<string, number>> {
      const nowMs = clock.now();
      const out: Record<string, number> = {};
      for (const p of await pairs(db)) {
        if (p.quotes.length === 0) continue;
        const newest = Math.max(...p.quotes.map((q) => q.fetchedAt.getTime()));
        out[pairKey(p.pair)] = Math.max(0, (nowMs - newest) / 1000);
      }
      return out;
    },

    /** How many pairs have no effective rate now (metrics and the console's warning). */
    async stalePairs(): Promise<number> {
      return (await list()).filter((p) => !p.fresh).length;
    },

    /** The markup percent of a crypto PAYIN: the merchant's own, else RATE_MARKUP_PAYIN_PERCENT. */
    payinMarkupPercent(merchantPercent: string | null | undefined): string {
      return payinMarkupPercent(merchantPercent, deps.markupPayinPercent ?? '0');
    },
  };
}

/**
 * An operator rate far from the sources' median (docs/decisions.md section 34): only the admin role
 * (403 FORBIDDEN naming rate otherwise), and only with a reason (VALIDATION_ERROR naming reason).
 */
function assertMaySetFarRate(
  actor: AdminActor,
  reason: string | null,
  far: { pair: string; rate: Decimal; reference: Decimal; deviation: Decimal; limit: string },
): void {
  const what = `${far.rate.toFixed()} is ${far.deviation.toFixed()} % from the sources' median ${far.reference.toFixed()} of ${far.pair} (RATE_OPERATOR_MAX_DEVIATION ${far.limit} %)`;
  if (actor.role !== undefined && actor.role !== 'admin')
    throw new AppError('FORBIDDEN', [
      { field: 'rate', problem: `${what}: only an admin may set it, with a reason` },
    ]);
  if (!reason) throw invalidField('reason', `is required: ${what}`);
}

export type RatesService = ReturnType<typeof createRatesService>;

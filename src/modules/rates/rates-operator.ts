import type { Decimal } from 'decimal.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import { expiryOf, maxAgeOf, type RatesServiceDeps, recordChanges } from './rates-effective.js';
import { findManualRate, quotesOf, upsertManualRate } from './rates-repository.js';
import { deviationPercent, isFresh, median, sanityBounds } from './rates-rules.js';

const CODE = /^[A-Z]{3,5}$/;
const RATE_TEXT = /^\d{1,15}(\.\d{1,12})?$/;
/** The longest `ttl_seconds` of an operator's rate: 30 days. */
export const MAX_TTL_SECONDS = 30 * 86_400;

/** `PUT /admin/rates` body. */
export interface SetRateInput {
  base: string;
  quote: string;
  rate: string | number;
  ttl_seconds?: number | undefined;
  reason?: string | undefined;
}

/** Refuses a base or quote that is not a currency code (VALIDATION_ERROR naming it). */
export function checkPair(input: { base: string; quote: string }): void {
  if (!CODE.test(input.base)) throw invalidField('base', 'must be a currency code like USDT');
  if (!CODE.test(input.quote)) throw invalidField('quote', 'must be a currency code like RUB');
}

/** The input checked (codes, a positive rate in the pair's sanity band, the ttl's range); the rate as text. */
function checkInput(input: SetRateInput): string {
  checkPair(input);
  const text = String(input.rate);
  if (!RATE_TEXT.test(text) || money(text).lte(0)) throw invalidField('rate', 'must be a positive number');
  const ttl = input.ttl_seconds;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS))
    throw invalidField('ttl_seconds', `must be an integer from 1 to ${MAX_TTL_SECONDS}`);
  const bounds = sanityBounds(input.base, input.quote);
  if (money(text).lt(bounds.min) || money(text).gt(bounds.max))
    throw invalidField(
      'rate',
      `${money(text).toFixed()} is outside the sanity bounds of ${input.base}/${input.quote} (${bounds.min.toFixed()} to ${bounds.max.toFixed()}): a typing error?`,
    );
  return text;
}

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
export async function setOperatorRate(
  deps: RatesServiceDeps,
  input: SetRateInput,
  actor: AdminActor,
  source: string,
) {
  const text = checkInput(input);
  const ttl = input.ttl_seconds;
  const now = new Date(deps.clock.now());
  const row = {
    base: input.base,
    quote: input.quote,
    rate: money(text).toFixed(),
    source,
    updatedAt: now,
    expiresAt: ttl === undefined ? null : new Date(now.getTime() + ttl * 1000),
  };
  const reason = input.reason?.trim() || null;
  const limit = deps.operatorMaxDeviation ?? '10';
  return deps.database.db.transaction(async (tx) => {
    const fresh = (await quotesOf(tx, input.base, input.quote)).filter((q) =>
      isFresh(q.fetchedAt, now.getTime(), maxAgeOf(deps, q.source)),
    );
    const reference = median(fresh.map((q) => money(q.rate)));
    const deviation = reference ? deviationPercent(money(text), reference) : null;
    if (reference && deviation?.gt(limit))
      assertMaySetFarRate(actor, reason, {
        pair: `${input.base}/${input.quote}`,
        rate: money(text),
        reference,
        deviation,
        limit,
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
    await recordChanges(deps, tx, actor.name, [row]);
    return {
      base: row.base,
      quote: row.quote,
      rate: row.rate,
      source,
      updated_at: now.toISOString(),
      expires_at: expiryOf(deps, row).toISOString(),
    };
  });
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

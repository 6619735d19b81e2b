import type { Decimal } from 'decimal.js';
import { money, roundHalfUp } from '../../lib/money.js';

/**
 * Merchant fee: `round_half_up(amount * percent / 100, 2)` (docs/decisions.md section 6).
 * `amount` in currency units; `percent` like "2.5" for 2.5 %.
 */
export function computeFee(amount: Decimal, percent: Decimal): Decimal {
  return roundHalfUp(amount.times(percent).dividedBy(100), 2);
}

/** PAYIN: what the merchant is credited, `amount - fee`; PAYOUT: what is debited, `amount + fee`. */
export function amountAfterFee(direction: 'PAYIN' | 'PAYOUT', amount: Decimal, fee: Decimal): Decimal {
  return direction === 'PAYIN' ? amount.minus(fee) : amount.plus(fee);
}

/**
 * USDT figures of a fiat order with `convertToUsdt` (docs/api.md createOrder response;
 * docs/decisions.md section 6): `usdtAmount = round(amount / rate, 2)`,
 * `usdtAmountAfterFee = round((amount - fee) / rate, 2)`, `rate` = units of currency per USDT.
 */
export function usdtFigures(
  amount: Decimal,
  fee: Decimal,
  rate: Decimal,
): { usdtAmount: Decimal; usdtAmountAfterFee: Decimal } {
  return {
    usdtAmount: roundHalfUp(amount.dividedBy(rate), 2),
    usdtAmountAfterFee: roundHalfUp(amount.minus(fee).dividedBy(rate), 2),
  };
}

/** The allowed deviation of a RUB PAYIN amount, in whole rubles. */
export interface Deviation {
  up: number;
  down: number;
}

/**
 * Resolves the deviation (docs/api.md "Amount disambiguation rules" 1-3): only RUB PAYIN;
 * a value in the request wins over the merchant default, field by field; both zero means disabled
 * (returns undefined).
 */
export function resolveDeviation(
  request: { amountUp?: number | undefined; amountDown?: number | undefined },
  defaults: Deviation,
  currency: string,
  direction: 'PAYIN' | 'PAYOUT',
): Deviation | undefined {
  if (currency !== 'RUB' || direction !== 'PAYIN') return undefined;
  const up = request.amountUp ?? defaults.up;
  const down = request.amountDown ?? defaults.down;
  return up > 0 || down > 0 ? { up, down } : undefined;
}

/**
 * Candidate payable amounts in the order they are tried: the amount itself, then +1, -1, +2, -2, ...
 * within `[amount - down, amount + up]`, never below 1 (docs/decisions.md section 7).
 */
export function disambiguationCandidates(amount: number, deviation: Deviation): number[] {
  const out = [amount];
  const reach = Math.max(deviation.up, deviation.down);
  for (let step = 1; step <= reach; step++) {
    if (step <= deviation.up) out.push(amount + step);
    if (step <= deviation.down && amount - step >= 1) out.push(amount - step);
  }
  return out;
}

/**
 * Picks the payable amount (docs/api.md "Amount disambiguation rules" 4-5): the first candidate
 * not held by an active pending order; when every value is taken, the original amount.
 * `taken` holds the payable amounts of active pending RUB PAYIN orders, as strings like "1000".
 */
export function disambiguateAmount(amount: number, deviation: Deviation, taken: ReadonlySet<string>): number {
  for (const candidate of disambiguationCandidates(amount, deviation)) {
    if (!taken.has(String(candidate))) return candidate;
  }
  return amount;
}

/** Normalises a NUMERIC text such as "1000.00" to the key form used in `taken` ("1000"). */
export function amountKey(value: string): string {
  return money(value).toFixed();
}

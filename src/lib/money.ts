import { Decimal } from 'decimal.js';

/**
 * Decimal arithmetic for money (docs/decisions.md section 6: never binary floats).
 * A dedicated constructor so that global Decimal settings of other code cannot change ours.
 */
export const Money = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -30,
  toExpPos: 40,
});
export type Money = Decimal;

/** Anything a money value may come from: a NUMERIC column (string), a JSON number, a Decimal. */
export type MoneyInput = string | number | Decimal;

export function money(value: MoneyInput): Decimal {
  return new Money(value);
}

/** Rounds half up to `dp` decimals (docs/decisions.md section 6 "round_half_up"). */
export function roundHalfUp(value: Decimal, dp = 2): Decimal {
  return value.toDecimalPlaces(dp, Decimal.ROUND_HALF_UP);
}

/** Rounds up (away from zero for positives) to `dp` decimals: what a payer must send is never short. */
export function roundUp(value: Decimal, dp = 8): Decimal {
  return value.toDecimalPlaces(dp, Decimal.ROUND_UP);
}

/**
 * A JSON number for a fiat or USDT amount: at most 2 decimals (docs/decisions.md section 2).
 * Safe because every amount we store fits far inside 2^53 at 2 decimals.
 */
export function toJsonAmount(value: MoneyInput): number {
  return roundHalfUp(money(value), 2).toNumber();
}

/** A NUMERIC column value, written without exponent. */
export function toDbAmount(value: Decimal): string {
  return value.toFixed();
}

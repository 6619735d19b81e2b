import type { Decimal } from 'decimal.js';
import { AppError } from '../../lib/errors.js';
import { money, roundHalfUp } from '../../lib/money.js';

// The pure rules of holders' money (docs/decisions.md "Holders' money"): account names, the amounts
// operators type, the commission, the identity held = received − settled − paid out (+ corrections).

/** The currency holders' limits, `held_rub` and the default books are kept in. */
export const HOLDER_CURRENCY = 'RUB';

/** Ledger accounts of holders' money. A holder's `holder:<id>` sums to what they hold for the operator. */
export const HOLDER_ACCOUNTS = {
  held: (holderId: string) => `holder:${holderId}`,
  /** What the operator owes the holder: their commission on what their requisites received. */
  commission: (holderId: string) => `holder_commission:${holderId}`,
  /** The other side of every receipt: what all holders were given. */
  received: 'system:holders_received',
  /** The other side of every settlement: what all holders handed over. */
  settled: 'system:holders_settled',
  /** The other side of commissions: the operator's cost of holders. */
  commissionExpense: 'system:holder_commission_expense',
  /** The other side of a payout a holder sent from their card: what holders paid out for the operator. */
  paidOut: 'system:holders_paid_out',
  /** The other side of an admin's correction (shared with merchants' adjustments). */
  adjustments: 'system:adjustments',
} as const;

/** Journal kinds on a holder's account. */
export const HOLDER_KINDS = {
  receipt: 'holder_receipt',
  settlement: 'holder_settlement',
  correction: 'holder_correction',
  commission: 'holder_commission',
  payout: 'holder_payout',
} as const;

/** A money amount as operators type it: up to 15 digits, at most 2 decimals, optional minus. */
const AMOUNT = /^-?\d{1,15}(\.\d{1,2})?$/;

/**
 * Reads an amount sent as a JSON number or a decimal string into a Decimal (never a float on the
 * way: a number is read from its shortest decimal text). `sign`: `positive` (a settlement, a limit
 * above zero), `non-negative` (a limit, a deposit), `non-zero` (a correction, either way).
 * Throws INVALID_AMOUNT naming `field` for anything else (NaN, exponents, 3 decimals, wrong sign).
 */
export function parseAmount(
  value: string | number,
  field: string,
  sign: 'positive' | 'non-negative' | 'non-zero',
): Decimal {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  if (!AMOUNT.test(text))
    throw new AppError('INVALID_AMOUNT', [{ field, problem: 'must be a decimal with at most 2 decimals' }]);
  const amount = money(text);
  const ok = sign === 'positive' ? amount.gt(0) : sign === 'non-negative' ? amount.gte(0) : !amount.isZero();
  if (!ok) throw new AppError('INVALID_AMOUNT', [{ field, problem: `must be ${sign}` }]);
  return amount;
}

/** A commission percent: 0 to 100, at most 4 decimals. Throws VALIDATION_ERROR naming the field. */
export function parsePercent(value: string | number, field = 'commission_percent'): Decimal {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  if (!/^\d{1,3}(\.\d{1,4})?$/.test(text) || money(text).gt(100))
    throw new AppError('VALIDATION_ERROR', [{ field, problem: 'must be a percent from 0 to 100' }]);
  return money(text);
}

/** The holder's commission on `received` at `percent`, rounded half up to kopecks. */
export function commissionOf(received: Decimal, percent: Decimal): Decimal {
  return roundHalfUp(received.times(percent).dividedBy(100), 2);
}

/** A holder's figures in one currency, decimal strings (docs/api.md "Holders"). */
export interface HolderBooks {
  currency: string;
  received: string;
  settled: string;
  corrections: string;
  /** Payouts the holder sent from their card (docs/decisions.md "Payouts through holders"). */
  paid_out: string;
  /** received − settled − paid_out + corrections: the sum of the holder's account. */
  held: string;
  /** The commission accrued to the holder (what the operator owes them). */
  commission: string;
}

/**
 * The figures of a holder's account from its sums per journal kind (`accountSumsByKind`) and the
 * commission account's balance. Settlements and payouts are negative entries on the account; the
 * answer shows them positive.
 */
export function holderBooks(
  currency: string,
  byKind: Map<string, Decimal>,
  commission: Decimal,
): HolderBooks {
  const of = (kind: string) => byKind.get(kind) ?? money(0);
  const received = of(HOLDER_KINDS.receipt);
  const settled = of(HOLDER_KINDS.settlement).negated();
  const corrections = of(HOLDER_KINDS.correction);
  const paidOut = of(HOLDER_KINDS.payout).negated();
  const held = received.minus(settled).minus(paidOut).plus(corrections);
  return {
    currency,
    received: received.toFixed(),
    settled: settled.toFixed(),
    corrections: corrections.toFixed(),
    paid_out: paidOut.toFixed(),
    held: held.toFixed(),
    commission: commission.toFixed(),
  };
}

/** A settlement may hand over at most what the holder holds: SETTLEMENT_EXCEEDS_HELD otherwise. */
export function checkSettlement(held: Decimal, amount: Decimal): void {
  if (amount.gt(held))
    throw new AppError('SETTLEMENT_EXCEEDS_HELD', [
      { field: 'amount', problem: `is more than the ${held.toFixed()} the holder holds` },
    ]);
}

/**
 * Whether a holder is over their limit: held plus pending above limit plus deposit. No limit
 * (null) is never over.
 */
export function overLimit(
  held: Decimal,
  pending: Decimal,
  limit: Decimal | null,
  deposit: Decimal | null,
): boolean {
  if (limit === null) return false;
  return held.plus(pending).gt(limit.plus(deposit ?? 0));
}

/**
 * The things of `owners` (id -> its holder, null: none) that belong to a holder other than
 * `holderId`, as [id, holder] pairs: what an assignment would move from another holder.
 */
export function otherHolders(owners: Map<string, string | null>, holderId: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [id, owner] of owners) if (owner !== null && owner !== holderId) out.push([id, owner]);
  return out;
}

/**
 * HOLDER_ASSIGNMENT_CONFLICT for things that belong to other holders (docs/decisions.md "Assigning
 * requisites and phones to holders"): one detail per thing, naming its holder and how to move it.
 */
export function assignmentConflict(field: string, moved: Array<[string, string]>): AppError {
  return new AppError(
    'HOLDER_ASSIGNMENT_CONFLICT',
    moved.map(([id, owner]) => ({
      field,
      problem: `${id} belongs to holder ${owner}: send move: true to move it`,
    })),
  );
}

import { AppError } from '../../lib/errors.js';

/** Account length of each payout type (docs/api.md "Limits": 11 digits fast-payment, 16 card). */
export const HOLDER_ACCOUNT_DIGITS: Record<string, number> = { sim: 11, card: 16 };

/** Validated payout details. */
export interface PayoutDetails {
  holderAccount: string;
  holderName: string;
  methodName: string;
}

/**
 * The shape of `payout_details` (docs/api.md "createOrder - PAYOUT"; docs/decisions.md section
 * 10): missing or incomplete -> INVALID_PAYOUT_DETAILS; `holderAccount` not digits only or not 11
 * (`sim`) / 16 (`card`) digits -> INVALID_HOLDER_ACCOUNT. The bank is checked by parsePayoutDetails.
 */
export function payoutDetailsShape(value: unknown, type: string): PayoutDetails {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new AppError('INVALID_PAYOUT_DETAILS');
  const { holderAccount, holderName, methodName } = value as Record<string, unknown>;
  if (typeof holderAccount !== 'string' || holderAccount.length === 0)
    throw new AppError('INVALID_PAYOUT_DETAILS');
  if (typeof holderName !== 'string' || holderName.trim().length === 0 || holderName.length > 200) {
    throw new AppError('INVALID_PAYOUT_DETAILS');
  }
  if (typeof methodName !== 'string' || methodName.length === 0) throw new AppError('INVALID_PAYOUT_DETAILS');
  if (!/^\d+$/.test(holderAccount) || holderAccount.length !== HOLDER_ACCOUNT_DIGITS[type]) {
    throw new AppError('INVALID_HOLDER_ACCOUNT');
  }
  return { holderAccount, holderName: holderName.trim(), methodName };
}

/**
 * Checks `payout_details` whole: its shape (payoutDetailsShape), then `methodName` a name of
 * `bankNames` (the enabled banks of `GET /merchant/banks`), else INVALID_PAYOUT_DETAILS.
 */
export function parsePayoutDetails(
  value: unknown,
  type: string,
  bankNames: ReadonlySet<string>,
): PayoutDetails {
  const details = payoutDetailsShape(value, type);
  if (!bankNames.has(details.methodName)) throw new AppError('INVALID_PAYOUT_DETAILS');
  return details;
}

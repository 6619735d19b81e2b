/**
 * When one bank credit may confirm one order by itself (docs/decisions.md section 24), as a pure decision over
 * what the caller read in one transaction. Every condition must hold; anything else goes to an
 * operator's review queue with its reason, and nothing is ever credited on a guess.
 */
import { money } from '../../lib/money.js';
import type { MessageFields, ParsedMessage } from '../../modules/bank-messages/index.js';

/** Clock skew allowed between the phone and the server around an order's life, in seconds. */
export const CLOCK_SKEW_SECONDS = 120;
/** How far a time in the message's text may be from the phone's receive time, in minutes. */
export const TEXT_TIME_TOLERANCE_MINUTES = 5;
/**
 * How long after an expired order's deadline a credit of its amount is taken as possibly its payer's,
 * in minutes: within it, a pending order of the same amount on the requisite is not confirmed.
 * Late payers pay within minutes of the timer; past an hour the credit is the pending order's, and a
 * payer later still is found through appeals.
 */
export const LATE_PAYER_MINUTES = 60;
/** The banks' clock (message texts show Moscow time). */
const BANK_TIME_ZONE = 'Europe/Moscow';

/** A pending (or recently expired) order on the requisite, as the decision needs it. */
export interface OrderOnRequisite {
  id: string;
  status: 'pending' | 'expired';
  /** The amount the payer must send, currency units, as a decimal string. */
  payableAmount: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Everything the decision reads, gathered by the caller. */
export interface CreditContext {
  parsed: ParsedMessage;
  receivedAt: Date;
  /** The source (SMS sender or app package) is on the allowlist of the requisite's bank. */
  sourceAllowed: boolean;
  /** The device is active (not revoked) and is the one bound to the requisite. */
  deviceBound: boolean;
  /** The requisite is paused by its bank's block message: its credits wait for an operator. */
  requisiteBlocked: boolean;
  /** The evidence is weaker (SmsForwarder: the body is not signed) and the deployment wants an operator for it. */
  needsOperator: boolean;
  /** Masks the requisite's bank messages show (card or account endings). */
  requisiteMasks: readonly string[];
  /** The requisite's orders that are pending or expired within the last day. */
  orders: readonly OrderOnRequisite[];
}

/**
 * Why a message goes to review rather than confirming an order (the console words each in both
 * languages: backoffice console-texts-review-*.ts; README "What each review reason means").
 */
export const REVIEW_REASONS = [
  /** No rule of the bank and no parts read it. */
  'unparsed',
  /** Rules of the bank read the text differently. */
  'ambiguous',
  /** An amount with no word or sign saying money came in (or went out). */
  'no_direction',
  /** Words or signs of money coming in and going out. */
  'both_directions',
  /** Two movement amounts (or a rule's amount the text does not show alone). */
  'two_amounts',
  'unknown_source',
  'device_not_bound',
  'wrong_mask',
  'time_mismatch',
  'no_order',
  'several_orders',
  'late',
  'outside_life',
  'needs_operator',
  'requisite_blocked',
  /** The device has no requisite at the message's bank, or several and the message shows no mask. */
  'no_requisite',
  'several_requisites',
  /** The credit's currency is not the requisite's. */
  'currency_mismatch',
  /**
   * Money in that is no payer's transfer: interest, cashback, a benefit or pension, the holder's own
   * deposit (docs/decisions.md section 58); an order is never confirmed by it alone.
   */
  'bank_own_money',
  /** Raised by the service: an order expired while its requisite's device was stale or offline. */
  'expired_while_offline',
  /**
   * Raised by a holder on their page: a payment their phone missed, with their note and receipt
   * (docs/decisions.md "The holder's own page"); never confirms an order by itself.
   */
  'holder_report',
] as const;

/** Why a message goes to review rather than confirming an order. */
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/** The decision: confirm one order, put it in review, pause the requisite, or ignore it. */
export type CreditDecision =
  | { action: 'confirm'; orderId: string }
  | { action: 'review'; reason: ReviewReason; orderId?: string }
  | { action: 'block' }
  | { action: 'alert'; reason: 'unknown_source_block' }
  | { action: 'ignore'; reason: 'debit' | 'otp' | 'info' };

/** `HH:MM` of `at` in the banks' time zone, as minutes of the day. */
function bankMinutes(at: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: BANK_TIME_ZONE,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

/** Whether the text's `HH:MM` agrees with the receive time (circular, across midnight). */
export function textTimeAgrees(fields: MessageFields, receivedAt: Date): boolean {
  if (!fields.time) return true;
  const [h, m] = fields.time.split(':').map(Number) as [number, number];
  const diff = Math.abs(h * 60 + m - bankMinutes(receivedAt));
  return Math.min(diff, 1440 - diff) <= TEXT_TIME_TOLERANCE_MINUTES;
}

/**
 * The decision for one message (docs/decisions.md section 24, in this order): parsed by a credit
 * rule, an allowlisted source, the bound device, a known mask, the text's time, then exactly one
 * order whose payable amount equals the credited amount exactly and whose life (with a 2-minute
 * margin) holds the receive time. A block from an allowlisted source pauses the requisite.
 * An order of that amount on the requisite whose deadline passed less than LATE_PAYER_MINUTES
 * before the credit keeps a pending one from being confirmed: the credit may be the expired
 * order's payer paying late, so it is a `late` review naming the expired order (README "Devices
 * and the review queue"; when unsure, never credit). With no pending order, any expired one of the
 * last day (`orders` holds those) makes it a `late` review.
 */
export function decideCredit(ctx: CreditContext): CreditDecision {
  const { parsed } = ctx;
  if (parsed.status === 'unparsed') return { action: 'review', reason: 'unparsed' };
  if (parsed.status === 'ambiguous') return { action: 'review', reason: 'ambiguous' };
  if (parsed.kind === 'block')
    return ctx.sourceAllowed ? { action: 'block' } : { action: 'alert', reason: 'unknown_source_block' };
  if (parsed.kind !== 'credit') return { action: 'ignore', reason: parsed.kind };
  if (!ctx.sourceAllowed) return { action: 'review', reason: 'unknown_source' };
  if (!ctx.deviceBound) return { action: 'review', reason: 'device_not_bound' };
  if (ctx.requisiteBlocked) return { action: 'review', reason: 'requisite_blocked' };
  if (parsed.bankOwn) return { action: 'review', reason: 'bank_own_money' };
  const { fields } = parsed;
  if (fields.mask && !ctx.requisiteMasks.includes(fields.mask))
    return { action: 'review', reason: 'wrong_mask' };
  if (!textTimeAgrees(fields, ctx.receivedAt)) return { action: 'review', reason: 'time_mismatch' };
  const amount = money(fields.amount as string);
  const at = ctx.receivedAt.getTime();
  const margin = CLOCK_SKEW_SECONDS * 1000;
  const sameAmount = ctx.orders.filter((o) => money(o.payableAmount).equals(amount));
  const pending = sameAmount.filter((o) => o.status === 'pending');
  if (pending.length > 1) return { action: 'review', reason: 'several_orders' };
  const [order] = pending;
  const expired = sameAmount.filter((o) => o.status === 'expired');
  const late = order
    ? expired.find((o) => at <= o.expiresAt.getTime() + LATE_PAYER_MINUTES * 60_000)
    : expired[0];
  if (late) return { action: 'review', reason: 'late', orderId: late.id };
  if (!order) return { action: 'review', reason: 'no_order' };
  if (at < order.createdAt.getTime() - margin || at > order.expiresAt.getTime() + margin) {
    return { action: 'review', reason: 'outside_life', orderId: order.id };
  }
  if (ctx.needsOperator) return { action: 'review', reason: 'needs_operator', orderId: order.id };
  return { action: 'confirm', orderId: order.id };
}

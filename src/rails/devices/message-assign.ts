/**
 * When an operator may confirm an order with a bank message by hand (docs/decisions.md "Bank
 * messages: how they are read and when they credit"): a credit, or a message read in doubt, for
 * only a fiat PAYIN, pending or ended within the last day without success, on the message's
 * requisite, whose payable amount equals the message's amount (one of them, in doubt) exactly. Pure: the caller passes the locked event and order.
 */
import { AppError, type ErrorDetail } from '../../lib/errors.js';
import { money } from '../../lib/money.js';

/** How long after an order ended a message may still be assigned to it, in ms. */
export const ASSIGN_AFTER_END_MS = 24 * 3600_000;

/** The message as the check reads it. */
export interface AssignableMessage {
  status: string;
  channel: string;
  /** `parsed`, `unparsed` or `ambiguous` (a reading in doubt). */
  parse: string | null;
  kind: string | null;
  amount: string | null;
  /** Every movement amount a reading in doubt shows, space-separated (`fields.amounts`). */
  fields: Record<string, string> | null;
  /** The requisite the message is about; null when routing could not tell. */
  requisiteId: string | null;
}

/** The order as the check reads it. */
export interface AssignableOrder {
  direction: 'PAYIN' | 'PAYOUT';
  method: 'fiat' | 'crypto' | 'payout';
  status: 'pending' | 'success' | 'error';
  finishedAt: Date | null;
  requisiteId: string | null;
  payableAmount: string;
}

/**
 * The refusal of an assignment, or undefined when it is allowed. `candidates` are the requisites the
 * message may be about when it names none (its device's bound ones). Codes: ORDER_STATE_CONFLICT
 * when the message is not in review; MESSAGE_NOT_FOR_ORDER naming the first rule that fails.
 */
export function assignRefusal(
  message: AssignableMessage,
  order: AssignableOrder,
  candidates: readonly string[],
  now: Date,
): AppError | undefined {
  if (message.status !== 'review') return new AppError('ORDER_STATE_CONFLICT');
  const refuse = (field: string, problem: string): AppError =>
    new AppError('MESSAGE_NOT_FOR_ORDER', [{ field, problem } satisfies ErrorDetail]);
  const inDoubt = message.parse === 'ambiguous';
  if (message.channel === 'system' || (message.kind !== 'credit' && !inDoubt) || !message.amount)
    return refuse(
      'event',
      'only a bank credit message (or one read in doubt) with an amount confirms an order',
    );
  if (order.direction !== 'PAYIN' || order.method !== 'fiat')
    return refuse('order_id', 'a bank message confirms only a fiat PAYIN order');
  const endedRecently =
    order.status === 'error' &&
    order.finishedAt !== null &&
    now.getTime() - order.finishedAt.getTime() <= ASSIGN_AFTER_END_MS;
  if (order.status !== 'pending' && !endedRecently)
    return refuse('order_id', 'the order is neither pending nor ended within the last 24 hours');
  const allowed = message.requisiteId ? [message.requisiteId] : candidates;
  if (!order.requisiteId || !allowed.includes(order.requisiteId))
    return refuse('order_id', "the order is on another requisite than the message's");
  const amounts = inDoubt && message.fields?.amounts ? message.fields.amounts.split(' ') : [message.amount];
  if (!amounts.some((a) => money(order.payableAmount).equals(money(a))))
    return refuse('order_id', "the message's amount differs from the order's payable amount");
  return undefined;
}

/**
 * The one decision about a phone's message (docs/decisions.md "Bank messages: how they are read and
 * when they credit"): every app's report (SMS Gateway for Android, SmsForwarder, the native batch)
 * ends here, as a pure function of facts the service gathered inside the requisite's lock. The
 * service only applies the outcome.
 */
import type { Doubt, MessageChannel, MessageKind, ParsedMessage } from '../../modules/bank-messages/index.js';
import {
  type CreditDecision,
  decideCredit,
  type OrderOnRequisite,
  type ReviewReason,
} from './credit-matching.js';
import { CHANNEL_DOUBT_SECONDS, type ReadCredit, sameTransfer } from './event-dedup.js';

/** Everything the decision reads. */
export interface MessageFacts {
  /** A bank's rules read it (else it is nobody's: a private message, kept without its text). */
  bankKnown: boolean;
  parsed: ParsedMessage;
  /** The source is on the list of that bank's senders or app packages. */
  sourceAllowed: boolean;
  channel: MessageChannel;
  receivedAt: Date;
  /** The routing: how many of the device's bound requisites it may be about, and a mask none has. */
  requisites: number;
  maskUnknown: boolean;
  /** The one requisite it is about, when there is one. */
  requisite?: { id: string; currency: string; blocked: boolean; masks: readonly string[] };
  /** The app's evidence needs an operator (SmsForwarder when the deployment says so). */
  needsOperator: boolean;
  /** Pending and recently expired orders of the requisite of the credited amount. */
  orders: readonly OrderOnRequisite[];
  /**
   * Credits of the requisite read within `CHANNEL_DOUBT_SECONDS` of this one (pairing the SMS and
   * the push of one transfer, and doubting a second order for it).
   */
  recentCredits: ReadonlyArray<ReadCredit & { id: string; orderId: string | null }>;
}

/** What becomes of a message. `noise` is stored and counted but queued for nobody. */
export type MessageOutcome =
  | CreditDecision
  | { action: 'private' }
  | { action: 'noise'; kind: Exclude<MessageKind, 'credit' | 'block'> }
  | { action: 'paired'; eventId: string; orderId: string | null };

/** The review reason of a reading in doubt. */
export function doubtReason(parsed: ParsedMessage): ReviewReason {
  if (parsed.status === 'unparsed') return 'unparsed';
  if (parsed.status !== 'ambiguous') return 'ambiguous';
  const reasons: Record<Doubt, ReviewReason> = {
    rules_disagree: 'ambiguous',
    no_direction: 'no_direction',
    both_directions: 'both_directions',
    two_amounts: 'two_amounts',
    // Declined, cancelled, returned or only requested: no movement the text vouches for.
    no_movement: 'no_direction',
  };
  return reasons[parsed.doubt];
}

/** The reason a credit is about no single requisite of the device. */
const routingReason = (facts: MessageFacts): ReviewReason =>
  facts.maskUnknown ? 'wrong_mask' : facts.requisites > 1 ? 'several_requisites' : 'no_requisite';

/**
 * The outcome, in this order: nobody's message; a sender no bank lists (review `unknown_source`,
 * or an alert for a block); a reading in doubt (review with the doubt); the bank's own block
 * (pause); noise (debit, code, info: stored only); then a credit: one requisite, its currency, the
 * other channel's message of the same transfer (paired), and the order choice (credit-matching.ts).
 */
export function decideMessage(facts: MessageFacts): MessageOutcome {
  const { parsed } = facts;
  if (!facts.bankKnown) return { action: 'private' };
  const kind = parsed.status === 'parsed' ? parsed.kind : undefined;
  if (!facts.sourceAllowed)
    return kind === 'block'
      ? { action: 'alert', reason: 'unknown_source_block' }
      : { action: 'review', reason: 'unknown_source' };
  if (parsed.status !== 'parsed') return { action: 'review', reason: doubtReason(parsed) };
  if (parsed.kind === 'block') return { action: 'block' };
  if (parsed.kind !== 'credit') return { action: 'noise', kind: parsed.kind };
  const requisite = facts.requisite;
  if (!requisite) return { action: 'review', reason: routingReason(facts) };
  const currency = parsed.fields.currency;
  if (currency && currency !== requisite.currency) return { action: 'review', reason: 'currency_mismatch' };
  const mine: ReadCredit = {
    channel: facts.channel,
    requisiteId: requisite.id,
    receivedAt: facts.receivedAt,
    fields: parsed.fields,
  };
  const paired = pairOf(facts, mine);
  if (paired) return paired;
  const decision = decideCredit({
    parsed,
    receivedAt: facts.receivedAt,
    sourceAllowed: true,
    deviceBound: true,
    requisiteBlocked: requisite.blocked,
    needsOperator: facts.needsOperator,
    requisiteMasks: requisite.masks,
    orders: facts.orders,
  });
  return echoOf(facts, mine, decision);
}

/** The other channel's message of the same transfer among the recent credits, as an outcome. */
function pairOf(facts: MessageFacts, mine: ReadCredit): MessageOutcome | undefined {
  const pair = facts.recentCredits.find((r) => sameTransfer(r, mine));
  return pair ? { action: 'paired', eventId: pair.id, orderId: pair.orderId } : undefined;
}

/**
 * A confirmation held back when the other channel's credit of the same amount was read on the
 * requisite past the pairing window but within `CHANNEL_DOUBT_SECONDS` (event-dedup.ts): the SMS of
 * a transfer whose push already paid order A may come minutes later, when order B holds the same
 * amount. It goes to review as `several_orders` naming the order it would have paid (README
 * "Devices and the review queue"); two messages of one channel are two payments, as before. A
 * credit waiting in review for that very order is no doubt: both would pay the one order.
 */
function echoOf(facts: MessageFacts, mine: ReadCredit, decision: CreditDecision): MessageOutcome {
  if (decision.action !== 'confirm') return decision;
  const echo = facts.recentCredits.some(
    (r) => r.orderId !== decision.orderId && sameTransfer(r, mine, CHANNEL_DOUBT_SECONDS),
  );
  return echo ? { action: 'review', reason: 'several_orders', orderId: decision.orderId } : decision;
}

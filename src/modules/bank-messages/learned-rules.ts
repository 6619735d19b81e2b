/**
 * Rules learned from the review queue as the reader consults them (docs/decisions.md "Rules learned
 * from the review queue"). Pure. A learned rule is one more rule of its bank that only ever reads a
 * credit, with the amount (and ending, payer, balance) from its named holes; it is consulted only
 * when the bank's own rules and the parts left the text unread or in a doubt about its direction or
 * amounts, never over a reading of theirs, and never when the text shows money going out, a block
 * or a one-time code: when unsure, never credit.
 */
import type { LearnedRule, MessageChannel, MessageFields } from './bank-rule.js';
import type { MessageParts } from './message-parts.js';
import { parseAmount } from './normalise.js';

/** The bank's own reading as the hook sees it (parse-message.ts `ParsedMessage`). */
interface OwnReading {
  status: 'parsed' | 'unparsed' | 'ambiguous';
  doubt?: string;
}

/** The rule id a learned reading carries (`learned.<id>`). */
export const learnedRuleId = (id: string) => `learned.${id}`;

/** `5000.00` and `5000` are one amount. */
const sameAmount = (a: string, b: string) => {
  const plain = (x: string) => (x.includes('.') ? x.replace(/0+$/, '').replace(/\.$/, '') : x);
  return plain(a) === plain(b);
};

/** The fields a learned rule's match reads; undefined without a positive amount. */
export function learnedFields(groups: Record<string, string | undefined>): MessageFields | undefined {
  const amount = parseAmount(groups.amount);
  if (amount === undefined || !/[1-9]/.test(amount)) return undefined;
  const fields: MessageFields = { amount };
  const balance = parseAmount(groups.balance);
  if (balance !== undefined) fields.balance = balance;
  const mask = groups.mask?.match(/\d{4}$/)?.[0];
  if (mask) fields.mask = mask;
  const payer = groups.payer?.trim();
  if (payer) fields.payer = payer;
  return fields;
}

/** Whether the bank's own reading leaves room for a learned rule. */
function open(outcome: OwnReading, parts: MessageParts): boolean {
  if (outcome.status === 'parsed') return false;
  if (outcome.status === 'ambiguous' && outcome.doubt !== 'no_direction' && outcome.doubt !== 'two_amounts')
    return false;
  // A text that says the operation was undone or only requested is never a credit, learned or not.
  if (parts.block || parts.noise === 'otp' || parts.undone) return false;
  return parts.direction === 'in' || parts.direction === 'none';
}

/**
 * The credit a bank's learned rules read in a normalised text on `channel`, given the reading of
 * its own rules (`own`) and the text's parts: the one learned reading whose amount is one of the
 * movement amounts the parts show (when they show any); undefined when none reads it, when the
 * own reading leaves no room, or when two learned rules read different amounts.
 */
export function learnedReading(
  learned: readonly LearnedRule[] | undefined,
  channel: MessageChannel,
  text: string,
  parts: MessageParts,
  own: OwnReading,
): { ruleId: string; fields: MessageFields } | undefined {
  if (!learned?.length || !open(own, parts)) return undefined;
  const readings: Array<{ id: string; fields: MessageFields }> = [];
  for (const rule of learned) {
    if (rule.channel !== channel) continue;
    const groups = rule.pattern.exec(text)?.groups;
    const fields = groups ? learnedFields(groups) : undefined;
    if (!fields?.amount) continue;
    const amount = fields.amount;
    if (parts.amounts.length > 0 && !parts.amounts.some((a) => sameAmount(a, amount))) continue;
    readings.push({ id: rule.id, fields });
  }
  const [first] = readings;
  if (!first || readings.some((r) => !sameAmount(r.fields.amount ?? '', first.fields.amount ?? '')))
    return undefined;
  const fields = { ...first.fields, ...(parts.currency ? { currency: parts.currency } : {}) };
  return { ruleId: learnedRuleId(first.id), fields };
}

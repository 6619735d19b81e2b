/**
 * Reading a bank's message (docs/decisions.md "Bank messages: how they are read and when they
 * credit"): the text is normalised, read by its parts (message-parts.ts), then every rule of the
 * bank for the message's channel runs. A bank's rule names the fields where the bank's shape is
 * known; the parts decide whether money came in. A credit needs incoming evidence, no outgoing
 * evidence, and exactly one amount that is not a balance, a fee or a limit: the rule's amount when
 * a rule read it. Anything in between is `ambiguous` with the doubt named, never a credit.
 */
import type { BankFormat, MessageChannel, MessageFields, MessageKind } from './bank-rule.js';
import { learnedReading } from './learned-rules.js';
import { type MessageParts, readParts } from './message-parts.js';
import { normaliseMessage, parseAmount } from './normalise.js';

/** Why a message that may be money is not read as one movement. */
export type Doubt =
  /** Rules of the bank read it differently (kinds or amounts). */
  | 'rules_disagree'
  /** It shows an amount but no word or sign that money came in or went out. */
  | 'no_direction'
  /** It shows evidence of money coming in and going out. */
  | 'both_directions'
  /** It shows two movement amounts (or the rule's amount is not the one the text shows). */
  | 'two_amounts'
  /**
   * It shows money coming in and an amount but says the operation was declined, cancelled,
   * returned, not credited or suspended, or only requested (message-parts.ts `undone`).
   */
  | 'no_movement';

/** The outcome of reading one message. */
export type ParsedMessage =
  | {
      status: 'parsed';
      kind: MessageKind;
      ruleId: string;
      fields: MessageFields;
      /** A credit of the bank's or the holder's own money (MessageParts.bankOwn): never a payer's. */
      bankOwn?: true;
    }
  /** No rule of the bank matched and the parts show no movement nor noise: a new format for review. */
  | { status: 'unparsed' }
  /**
   * Kept for review, never credited. `amounts`: the movement amounts the text shows (what an
   * operator may assign it for).
   */
  | { status: 'ambiguous'; ruleIds: string[]; doubt: Doubt; amounts?: string[] };

type Match = { ruleId: string; kind: MessageKind; fields: MessageFields };

/** Reads the named groups of a match into fields; undefined when a money group is not an amount. */
function fieldsOf(groups: Record<string, string | undefined>): MessageFields | undefined {
  const fields: MessageFields = {};
  for (const key of ['amount', 'balance'] as const) {
    if (groups[key] === undefined) continue;
    const value = parseAmount(groups[key]);
    if (value === undefined) return undefined;
    fields[key] = value;
  }
  if (groups.currency !== undefined) fields.currency = 'RUB';
  for (const key of ['mask', 'payer', 'payerBank', 'time'] as const) {
    const value = groups[key]?.trim();
    if (value) fields[key] = value;
  }
  return fields;
}

/** The rules of the bank that read `text` on `channel` (a money rule only with its amount). */
function ruleMatches(format: BankFormat, channel: MessageChannel, text: string): Match[] {
  const matches: Match[] = [];
  for (const rule of format.rules) {
    if (!rule.channels.includes(channel)) continue;
    const found = rule.pattern.exec(text);
    if (!found) continue;
    const fields = fieldsOf(found.groups ?? {});
    if (!fields) continue;
    if ((rule.kind === 'credit' || rule.kind === 'debit') && fields.amount === undefined) continue;
    matches.push({ ruleId: rule.id, kind: rule.kind, fields });
  }
  return matches;
}

/** The fields the parts read, for a message no rule of the bank read. */
function partsFields(parts: MessageParts): MessageFields {
  const [amount] = parts.amounts;
  return {
    ...(amount ? { amount } : {}),
    ...(parts.currency ? { currency: parts.currency } : {}),
    ...(parts.mask ? { mask: parts.mask } : {}),
    ...(parts.payer ? { payer: parts.payer } : {}),
    ...(parts.balance ? { balance: parts.balance } : {}),
    ...(parts.time ? { time: parts.time } : {}),
  };
}

// The same amount shown twice ("vnesena summa 22000.00 ... Zachisleno 22000.00") is one movement.
const doubtOf = (parts: MessageParts): Doubt | undefined =>
  parts.direction === 'both'
    ? 'both_directions'
    : new Set(parts.amounts).size > 1
      ? 'two_amounts'
      : undefined;

/** A credit rule's match checked against the parts: the rule must agree with the evidence. */
function checkCredit(match: Match, parts: MessageParts): ParsedMessage {
  const ambiguous = (doubt: Doubt): ParsedMessage => ({
    status: 'ambiguous',
    ruleIds: [match.ruleId],
    doubt,
  });
  if (parts.undone) return ambiguous('no_movement');
  const doubt = doubtOf(parts);
  if (doubt) return ambiguous(doubt);
  if (parts.direction !== 'in')
    return ambiguous(parts.direction === 'out' ? 'both_directions' : 'no_direction');
  if (parts.amounts[0] !== match.fields.amount) return ambiguous('two_amounts');
  if (!(Number(match.fields.amount) > 0)) return ambiguous('no_direction');
  return { status: 'parsed', ...match };
}

/** A message no rule of the bank read, by its parts alone (`generic.*` rule ids). */
function readByParts(parts: MessageParts): ParsedMessage {
  const fields = partsFields(parts);
  if (parts.block) return { status: 'parsed', kind: 'block', ruleId: 'generic.block', fields: {} };
  if (parts.noise)
    return {
      status: 'parsed',
      kind: parts.noise === 'otp' ? 'otp' : 'info',
      ruleId: `generic.${parts.noise}`,
      fields: {},
    };
  if (parts.undone) return { status: 'ambiguous', ruleIds: [], doubt: 'no_movement' };
  const doubt = doubtOf(parts);
  if (parts.direction === 'out' && parts.amounts.length > 0)
    return { status: 'parsed', kind: 'debit', ruleId: 'generic.debit', fields };
  if (doubt) return { status: 'ambiguous', ruleIds: [], doubt };
  if (parts.direction === 'in' && parts.amounts.length > 0 && Number(parts.amounts[0]) > 0)
    return { status: 'parsed', kind: 'credit', ruleId: 'generic.credit', fields };
  return parts.direction === 'none'
    ? { status: 'ambiguous', ruleIds: [], doubt: 'no_direction' }
    : { status: 'unparsed' };
}

/** The reading of one normalised text; a reading in doubt keeps the amounts the text shows. */
function readText(format: BankFormat, channel: MessageChannel, text: string): ParsedMessage {
  const parts = readParts(text, format.direction);
  const own = readWithParts(format, channel, text, parts);
  // The one hook of the rules learned from the review queue (learned-rules.ts): after the bank's own.
  const learned = learnedReading(format.learned, channel, text, parts, own);
  const outcome: ParsedMessage = learned ? { status: 'parsed', kind: 'credit', ...learned } : own;
  if (outcome.status === 'parsed' && outcome.kind === 'credit' && parts.bankOwn)
    return { ...outcome, bankOwn: true };
  if (outcome.status !== 'ambiguous' || parts.amounts.length === 0) return outcome;
  return { ...outcome, amounts: parts.amounts };
}

/** The bank's rules checked against the text's parts. */
function readWithParts(
  format: BankFormat,
  channel: MessageChannel,
  text: string,
  parts: MessageParts,
): ParsedMessage {
  // A block rule counts only for the bank's own notice, never for a transfer's words.
  const matches = ruleMatches(format, channel, text).filter((m) => m.kind !== 'block' || parts.block);
  if (matches.length === 0) return readByParts(parts);
  const first = matches[0] as Match;
  const agree = matches.every((m) => m.kind === first.kind && m.fields.amount === first.fields.amount);
  if (!agree) return { status: 'ambiguous', ruleIds: matches.map((m) => m.ruleId), doubt: 'rules_disagree' };
  if (first.kind === 'credit') return checkCredit(first, parts);
  if (first.kind === 'debit' && (parts.direction === 'in' || parts.direction === 'both'))
    return { status: 'ambiguous', ruleIds: [first.ruleId], doubt: 'both_directions' };
  return { status: 'parsed', ...first };
}

/**
 * The message as the bank reads it. `text` is the SMS body or the push text; a push's title is
 * tried before its text only when the text alone is not read. A text longer than 2 000 characters
 * is read by its first 2 000 only (no bank's notice is longer; a hostile text costs nothing more).
 */
export function parseBankMessage(
  format: BankFormat,
  message: { channel: MessageChannel; text: string; title?: string },
): ParsedMessage {
  const texts = [message.text];
  if (message.title) texts.push(`${message.title} ${message.text}`);
  let outcome: ParsedMessage = { status: 'unparsed' };
  for (const raw of texts) {
    outcome = readText(format, message.channel, normaliseMessage(raw.slice(0, MAX_TEXT)));
    const movedNothing = outcome.status === 'parsed' && outcome.kind === 'info';
    if (outcome.status === 'parsed' && !movedNothing) break;
  }
  if (outcome.status !== 'parsed' || outcome.kind !== 'credit' || !message.title) return outcome;
  // A credit read from the text alone must not be contradicted by its title ("Списание"), nor
  // undone by it ("Возврат Wildberries", "Отмена операции": docs/bank-messages.md, refunds are `other`).
  const whole = readParts(
    normaliseMessage(`${message.title} ${message.text}`.slice(0, MAX_TEXT)),
    format.direction,
  );
  if (whole.direction !== 'in') {
    const doubt: Doubt = whole.undone ? 'no_movement' : 'both_directions';
    const amounts = whole.amounts.length > 0 ? { amounts: whole.amounts } : {};
    return { status: 'ambiguous', ruleIds: [outcome.ruleId], doubt, ...amounts };
  }
  // The ending may be in the title only ("Пришел перевод на счет *6074"), and so may the words that
  // say the money is the bank's own ("Проценты по вкладу").
  const own = whole.bankOwn ? { bankOwn: true as const } : {};
  return outcome.fields.mask || !whole.mask
    ? { ...outcome, ...own }
    : { ...outcome, ...own, fields: { ...outcome.fields, mask: whole.mask } };
}

/** The longest text read, in characters. */
export const MAX_TEXT = 2000;

/**
 * The banks a source belongs to: an SMS sender id (compared case-insensitively, spaces ignored) or
 * an app package (exact). Several banks may share a generic sender; the caller decides with the
 * requisite's bank.
 */
export function banksOfSource(
  formats: readonly BankFormat[],
  channel: MessageChannel,
  source: string,
): BankFormat[] {
  const key = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  return formats.filter((f) =>
    channel === 'sms' ? f.senders.some((s) => key(s) === key(source)) : f.packages.includes(source),
  );
}

/**
 * Reading a bank's message (issue 19 section 2): the text is normalised, then every rule of the
 * bank for the message's channel runs. The amount comes only from a rule's `amount` group, never
 * from the first number, the balance, the mask or the time.
 */
import type { BankFormat, MessageChannel, MessageFields, MessageKind } from './bank-rule.js';
import { normaliseMessage, parseAmount } from './normalise.js';

/** The outcome of reading one message. */
export type ParsedMessage =
  | { status: 'parsed'; kind: MessageKind; ruleId: string; fields: MessageFields }
  /** No rule of the bank matched: kept for review as a new message format. */
  | { status: 'unparsed' }
  /** Rules matched that disagree (kinds or amounts): kept for review, never credited. */
  | { status: 'ambiguous'; ruleIds: string[] };

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

/**
 * The message as the bank's rules read it. `text` is the SMS body or the push text (a push's title is
 * tried before its text only when the text alone matches nothing). A credit or debit rule without a
 * readable amount does not count as a match.
 */
export function parseBankMessage(
  format: BankFormat,
  message: { channel: MessageChannel; text: string; title?: string },
): ParsedMessage {
  const texts = [message.text];
  if (message.title) texts.push(`${message.title} ${message.text}`);
  for (const raw of texts) {
    const text = normaliseMessage(raw);
    const matches: Array<{ ruleId: string; kind: MessageKind; fields: MessageFields }> = [];
    for (const rule of format.rules) {
      if (!rule.channels.includes(message.channel)) continue;
      const found = rule.pattern.exec(text);
      if (!found) continue;
      const fields = fieldsOf(found.groups ?? {});
      if (!fields) continue;
      if ((rule.kind === 'credit' || rule.kind === 'debit') && fields.amount === undefined) continue;
      matches.push({ ruleId: rule.id, kind: rule.kind, fields });
    }
    if (matches.length === 0) continue;
    const first = matches[0] as (typeof matches)[number];
    const agree = matches.every((m) => m.kind === first.kind && m.fields.amount === first.fields.amount);
    if (!agree) return { status: 'ambiguous', ruleIds: matches.map((m) => m.ruleId) };
    return { status: 'parsed', kind: first.kind, ruleId: first.ruleId, fields: first.fields };
  }
  return { status: 'unparsed' };
}

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

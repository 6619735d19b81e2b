import type { DirectionHints } from './message-parts.js';

/**
 * The shape of a bank's message rules (docs/decisions.md section 24): rules are data, one file per bank in
 * `banks/`, each rule with its own example texts that run as tests (`bank-rules.test.ts`).
 */

/** What a message says: money in, money out, the card or account blocked, a one-time code, other. */
export type MessageKind = 'credit' | 'debit' | 'block' | 'otp' | 'info';

/** Where a message came from: an SMS (its sender id) or an app's push notification (its package). */
export type MessageChannel = 'sms' | 'push';

/** The fields a rule's named groups may capture; amounts are decimal strings in currency units. */
export interface MessageFields {
  amount?: string;
  /** ISO 4217 code; `RUB` when the message shows the rouble in any spelling. */
  currency?: string;
  /** Card or account ending the message shows (digits only, usually 4). */
  mask?: string;
  payer?: string;
  payerBank?: string;
  balance?: string;
  /** `HH:MM` as the message shows it (the bank's local time). */
  time?: string;
}

/** One example text of a rule and what parsing it must give (the rule's own test). */
export interface RuleExample {
  text: string;
  fields: MessageFields;
}

/**
 * One rule: a pattern over the normalised text (normalise.ts) with named groups among `amount`,
 * `currency`, `mask`, `payer`, `payerBank`, `balance`, `time`. A credit rule must have `amount`.
 */
export interface BankRule {
  id: string;
  kind: MessageKind;
  /** The channels it applies to. */
  channels: readonly MessageChannel[];
  pattern: RegExp;
  examples: readonly RuleExample[];
}

/**
 * A rule learned from the review queue (learned-rules.ts), loaded from the database: its pattern
 * over the normalised text (flags `iu`) with named groups as holes; it only ever reads a credit.
 */
export interface LearnedRule {
  id: string;
  channel: MessageChannel;
  pattern: RegExp;
}

/** A bank's default sources and its rules. `code` is the bank list's (the same-bank payment types'). */
export interface BankFormat {
  code: string;
  name: string;
  /** Default SMS sender ids (operators may add others). */
  senders: readonly string[];
  /** Default app packages whose notifications it sends. */
  packages: readonly string[];
  rules: readonly BankRule[];
  /**
   * Direction words only this bank uses (message-parts.ts), e.g. Sberbank's short SMS where a bare
   * "перевод 2 480р" is money going out.
   */
  direction?: DirectionHints;
  /** Active rules learned from the review queue (learned-rules.ts), loaded from the database. */
  learned?: readonly LearnedRule[];
}

/** `(?<name>...)`: an amount as banks write it after normalisation (`1500`, `1500.50`, `1500,5`). */
export const amountGroup = (name: 'amount' | 'balance'): string =>
  String.raw`(?<${name}>\d+(?:[.,]\d{1,2})?)`;

/** The rouble after normalisation, as the `currency` group. */
export const RUB = String.raw`(?<currency>₽)`;

/** A card or account ending: `*1234`, `1234`, `MIR-1234`, `СЧЁТ1234`, as the `mask` group (digits). */
export const MASK_DIGITS = String.raw`(?<mask>\d{4})`;

/** `HH:MM` as the `time` group. */
export const TIME = String.raw`(?<time>\d{1,2}:\d{2})`;

/** Builds a rule's pattern from parts, case-insensitive and Unicode-aware. */
export function pattern(...parts: string[]): RegExp {
  return new RegExp(parts.join(''), 'iu');
}

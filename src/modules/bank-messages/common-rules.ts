/**
 * Rules every bank shares in substance (docs/decisions.md section 24): a card or account blocked or its
 * operations suspended (115-FZ / 161-FZ), and one-time codes. Each bank's file instantiates them
 * with its own example texts.
 */
import type { BankRule, RuleExample } from './bank-rule.js';
import { pattern } from './bank-rule.js';

/** A block: the card, account or operations blocked, suspended or restricted. */
export function blockRule(bank: string, examples: readonly RuleExample[]): BankRule {
  return {
    id: `${bank}.block`,
    kind: 'block',
    channels: ['sms', 'push'],
    pattern: pattern(
      String.raw`(?:карт|сч[её]т|операци|доступ|перевод).{0,60}?(?:заблокирован|приостановлен|ограничен)`,
      String.raw`|(?:115|161)-ФЗ`,
    ),
    examples,
  };
}

/** A one-time code (login or confirmation): never money. */
export function otpRule(bank: string, examples: readonly RuleExample[]): BankRule {
  return {
    id: `${bank}.otp`,
    kind: 'otp',
    channels: ['sms', 'push'],
    pattern: pattern(String.raw`(?:^|[ .])(?:код|пароль|code)(?: подтверждения| для входа)?:? \d{4,6}(?!\d)`),
    examples,
  };
}

/**
 * The shape of a bank's message as a learned rule (docs/decisions.md "Rules learned from the review
 * queue"). Pure. The normalised text is kept word for word and its varying parts become holes: the
 * amount the operator assigned (`amount`), the card or account ending (`mask`), the balance
 * (`balance`), the payer's name (`payer`); every other number (dates, times, references) becomes
 * "some digits". The pattern is anchored at both ends, so it reads only texts of that one shape.
 */
import { normaliseMessage, parseAmount, readParts } from '../bank-messages/index.js';

/** An amount as a hole reads it (the same form as bank-rule.ts `amountGroup`). */
const AMOUNT = String.raw`\d+(?:[.,]\d{1,2})?`;
/** A number of the text: digits with at most two decimals after a dot or comma. */
const NUMBER = /(?<!\d)\d+(?:[.,]\d{1,2}(?!\d))?/gu;

type Hole = { at: number; end: number; pattern: string };

/** The text escaped for a regular expression (flags `iu`). */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Two amounts are equal as decimals (`5000`, `5000.00`, `5000,0`). */
function sameAmount(a: string, b: string): boolean {
  const plain = (x: string) => (x.includes('.') ? x.replace(/0+$/, '').replace(/\.$/, '') : x);
  return plain(a) === plain(b);
}

/** The holes of the numbers: the first equal to the amount, the ending, the balance, the rest. */
function numberHoles(text: string, amount: string, mask: string | undefined, balance: string | undefined) {
  const holes: Hole[] = [];
  const taken = { amount: false, mask: false, balance: false };
  for (const m of text.matchAll(NUMBER)) {
    const token = m[0];
    const at = m.index ?? 0;
    const value = parseAmount(token);
    const hole = (pattern: string) => holes.push({ at, end: at + token.length, pattern });
    if (!taken.amount && value !== undefined && sameAmount(value, amount)) {
      taken.amount = true;
      hole(`(?<amount>${AMOUNT})`);
    } else if (!taken.mask && mask && /^\d+$/.test(token) && token.length >= 4 && token.endsWith(mask)) {
      taken.mask = true;
      hole(token.length === 4 ? String.raw`(?<mask>\d{4})` : String.raw`\d*(?<mask>\d{4})`);
    } else if (!taken.balance && balance && value !== undefined && sameAmount(value, balance)) {
      taken.balance = true;
      hole(`(?<balance>${AMOUNT})`);
    } else hole(/^\d+$/.test(token) ? String.raw`\d+` : String.raw`\d+(?:[.,]\d+)?`);
  }
  return { holes, amountFound: taken.amount };
}

/**
 * The pattern (a regular expression's source, flags `iu`) of a message's shape, reading `amount`
 * (a decimal string) and, when given or shown, the ending `mask`. A push's title, when given, is
 * read before its text as the reader does (`title text`). Answers undefined when the text does not
 * show the amount.
 */
export function deriveShape(message: { text: string; title?: string; amount: string; mask?: string }) {
  const raw = message.title ? `${message.title} ${message.text}` : message.text;
  const text = normaliseMessage(raw);
  const parts = readParts(text);
  const mask = message.mask ?? parts.mask;
  const { holes, amountFound } = numberHoles(text, message.amount, mask, parts.balance);
  if (!amountFound) return undefined;
  const payerAt = parts.payer ? text.indexOf(parts.payer) : -1;
  if (parts.payer && payerAt >= 0) {
    const end = payerAt + parts.payer.length;
    const clear = holes.every((h) => h.end <= payerAt || h.at >= end);
    if (clear) holes.push({ at: payerAt, end, pattern: '(?<payer>.+?)' });
  }
  holes.sort((a, b) => a.at - b.at);
  let pattern = '^';
  let from = 0;
  for (const h of holes) {
    pattern += escapeRegExp(text.slice(from, h.at)) + h.pattern;
    from = h.end;
  }
  return { pattern: `${pattern}${escapeRegExp(text.slice(from))}$`, text };
}

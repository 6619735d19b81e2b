/**
 * The simulated day's bank texts (test/fixtures/bank-messages/held-out/held-out.json): per bank, the
 * credit and outgoing templates the day fills with an order's amount, the requisite's ending and the
 * bank's time, and the real noise texts (codes, logins, declines) of that bank.
 */
import { readFileSync } from 'node:fs';

/** How a template writes an amount (the source text's own way). */
export type AmountStyle =
  | 'int'
  | 'comma'
  | 'dot2'
  | 'space_int'
  | 'space_dot'
  | 'space_dot2'
  | 'space_comma'
  | 'space_comma2';

/** One text the day sends: a template or a fixed text, where it comes from. */
export interface DayText {
  id: string;
  channel: 'sms' | 'push';
  /** SMS sender id or app package. */
  sender: string;
  template: string;
  style: AmountStyle;
  /** `held-out` (not in the corpus), `seen` (the corpus's own), `synthetic`. */
  origin: 'held-out' | 'seen' | 'synthetic';
}

/** The day's texts of one bank. */
export interface DayBank {
  code: string;
  credits: DayText[];
  debits: DayText[];
  /** Real texts that move no money (codes, logins, declines), sent as they are. */
  noise: DayText[];
}

interface FixtureEntry {
  id?: string;
  corpusId?: string;
  bank: string;
  channel: 'sms' | 'push';
  sender: string;
  text?: string;
  kind?: string;
  expected?: { kind: string };
  template?: string;
  amountStyle?: AmountStyle;
  synthetic?: boolean;
}

const FIXTURE = new URL('../fixtures/bank-messages/held-out/held-out.json', import.meta.url);

/** Every bank of the day with its texts, by bank code. */
export function dayBanks(codes: readonly string[]): Map<string, DayBank> {
  const doc = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
    entries: FixtureEntry[];
    dayExtras: { texts: FixtureEntry[] };
  };
  const banks = new Map<string, DayBank>(
    codes.map((c) => [c, { code: c, credits: [], debits: [], noise: [] }]),
  );
  const add = (e: FixtureEntry, origin: DayText['origin']) => {
    const bank = banks.get(e.bank);
    const kind = e.kind ?? e.expected?.kind;
    if (!bank) return;
    const text: DayText = {
      id: e.id ?? e.corpusId ?? `${e.bank}-synthetic-${kind}`,
      channel: e.channel,
      sender: e.sender,
      template: e.template ?? (e.text as string),
      style: e.amountStyle ?? 'int',
      origin,
    };
    if (kind === 'otp' || kind === 'other') bank.noise.push(text);
    else if (e.template && kind === 'credit') bank.credits.push(text);
    else if (e.template && kind === 'debit') bank.debits.push(text);
  };
  for (const e of doc.entries) add(e, 'held-out');
  for (const e of doc.dayExtras.texts) {
    const bank = banks.get(e.bank);
    const kind = e.kind as 'credit' | 'debit';
    // The corpus's or a synthetic text only where the bank has no held-out one of that kind.
    if (bank && bank[kind === 'credit' ? 'credits' : 'debits'].length === 0)
      add(e, e.synthetic ? 'synthetic' : 'seen');
  }
  return banks;
}

const spaced = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/** `amount` ("12345.60") written in `style`. */
export function writeAmount(amount: string, style: AmountStyle): string {
  const [whole = '0', frac = '00'] = amount.split('.');
  const kop = frac.padEnd(2, '0').slice(0, 2);
  const cents = kop !== '00';
  switch (style) {
    case 'int':
      return cents ? `${whole}.${kop}` : whole;
    case 'comma':
      return cents ? `${whole},${kop}` : whole;
    case 'dot2':
      return `${whole}.${kop}`;
    case 'space_int':
    case 'space_comma':
      return cents ? `${spaced(whole)},${kop}` : spaced(whole);
    case 'space_dot':
      return cents ? `${spaced(whole)}.${kop}` : spaced(whole);
    case 'space_dot2':
      return `${spaced(whole)}.${kop}`;
    case 'space_comma2':
      return `${spaced(whole)},${kop}`;
  }
}

/**
 * The text and the title (after `║`, the sources' way of writing a notification) of `t` for an
 * amount, an ending and a time (`HH:MM`, the bank's).
 */
export function fillText(
  t: DayText,
  fill: { amount: string; mask: string; hhmm: string },
): { text: string; title?: string } {
  const whole = t.template
    .replace('{amount}', writeAmount(fill.amount, t.style))
    .replace('{mask}', fill.mask)
    .replace('{time}', fill.hhmm);
  if (t.channel !== 'push' || !whole.includes('║')) return { text: whole };
  const [text = '', title = ''] = whole.split('║', 2).map((s) => s.trim());
  return title ? { text, title } : { text };
}

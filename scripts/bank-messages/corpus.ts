/**
 * The bank-message corpus (docs/bank-messages.md): real-format SMS and push texts of many banks, each
 * with its expected reading and its public source, stored as test data in
 * `test/fixtures/bank-messages/corpus/<bank>.json`. This module loads and checks the corpus and counts
 * how a reader reads it; `reader.ts` holds the one adapter onto the service's reader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';

/** What a text says, as the corpus records it (docs/bank-messages.md "Schema"). */
export type ExpectedKind = 'credit' | 'debit' | 'purchase' | 'otp' | 'ad' | 'balance' | 'block' | 'other';

export const EXPECTED_KINDS: readonly ExpectedKind[] = [
  'credit',
  'debit',
  'purchase',
  'otp',
  'ad',
  'balance',
  'block',
  'other',
];

/** One corpus text. Amounts and balances are decimal strings in roubles; `mask` is digits only. */
export interface CorpusEntry {
  id: string;
  bank: string;
  channel: 'sms' | 'push';
  /** The SMS sender id or the app package the text arrives from. */
  sender: string;
  /** The text as the source shows it; for pushes `║` separates the text from the notification title. */
  text: string;
  expected: { kind: ExpectedKind; amount?: string; currency?: string; mask?: string; balance?: string };
  source: { url?: string; repo?: string; path?: string; note?: string; [key: string]: unknown };
  /** Written for the corpus (a variation of a real format), not found in a public source. */
  synthetic?: boolean;
}

/** One bank's file. */
export interface CorpusFile {
  bank: string;
  name: string;
  entries: CorpusEntry[];
}

/** The corpus folder of this repository. */
export const CORPUS_DIR = new URL('../../test/fixtures/bank-messages/corpus/', import.meta.url).pathname;

/** Every bank's file of the corpus folder, sorted by bank code. */
export function loadCorpus(dir: string = CORPUS_DIR): CorpusFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CorpusFile);
}

const DECIMAL = /^\d+(?:\.\d+)?$/;

/** The schema problems of one entry of a bank's file (empty when the entry is valid). */
export function entryProblems(file: CorpusFile, e: CorpusEntry): string[] {
  const p: string[] = [];
  if (!/^[a-z]+-\d{3}$/.test(e.id ?? '')) p.push('id is not <bank>-NNN');
  if (e.bank !== file.bank) p.push(`bank ${e.bank} in the file of ${file.bank}`);
  if (e.channel !== 'sms' && e.channel !== 'push') p.push('channel is neither sms nor push');
  if (!e.sender) p.push('no sender');
  if (!e.text?.trim()) p.push('no text');
  const x = e.expected;
  if (!x || !EXPECTED_KINDS.includes(x.kind)) p.push('expected.kind is not a known kind');
  if (x?.kind === 'credit' && !(x.amount && x.currency)) p.push('a credit without amount and currency');
  if (x?.amount !== undefined && !DECIMAL.test(x.amount)) p.push('amount is not a decimal string');
  if (x?.balance !== undefined && !DECIMAL.test(x.balance)) p.push('balance is not a decimal string');
  if (x?.mask !== undefined && !/^\d{3,4}$/.test(x.mask)) p.push('mask is not 3-4 digits');
  const s = e.source;
  if (!s || !(s.url || (s.repo && s.path))) p.push('no source (url, or repo and path)');
  if (e.synthetic !== undefined && e.synthetic !== true) p.push('synthetic is neither true nor absent');
  if (e.synthetic && !s?.note) p.push('a synthetic text without a note saying what it varies');
  return p;
}

/** How a reader read one text: its kind (or `unread`), and the amount and ending it found. */
export interface Reading {
  kind: 'credit' | 'debit' | 'block' | 'otp' | 'info' | 'unread';
  amount?: string;
  mask?: string;
  /** What the reader said, for the report's lists (a rule id, `unparsed`, `ambiguous`...). */
  detail: string;
}

/** A reader as the report sees it (reader.ts adapts the service's reader to this). */
export type CorpusReader = (entry: CorpusEntry) => Reading;

/** A credit read right: read as a credit with the expected amount and, where the text shows one, the ending (`sameEnding`). */
export function creditReadRight(e: CorpusEntry, r: Reading): boolean {
  if (r.kind !== 'credit' || r.amount === undefined || e.expected.amount === undefined) return false;
  if (!new Decimal(r.amount).eq(e.expected.amount)) return false;
  return e.expected.mask === undefined || sameEnding(e.expected.mask, r.mask);
}

/**
 * Two endings of one card or account agree: equal, or one is the tail of the other and both have at
 * least 4 digits (the corpus keeps the last 4 digits of `Сч *26719`; a reader may keep all 5).
 */
export function sameEnding(expected: string, read: string | undefined): boolean {
  if (read === undefined) return false;
  if (read === expected) return true;
  const [short, long] = read.length < expected.length ? [read, expected] : [expected, read];
  return short.length >= 4 && long.endsWith(short);
}

/** The counts of one bank and channel (or of the whole corpus). */
export interface Tally {
  bank: string;
  name: string;
  channel: 'sms' | 'push' | 'all';
  texts: number;
  credits: number;
  creditsRight: number;
  /** Credits not read right: unread, another kind, or a wrong amount or ending (the next column). */
  creditsToReview: number;
  /** Credits read as a credit but with a wrong amount or ending: they could confirm the wrong order. */
  creditsWrongAmount: number;
  /** Must be 0: a debit, code, ad, block... read as money in. */
  nonCreditsAsCredits: number;
  /** Should be 0: a text that is not the bank's block notice read as one (it would pause a requisite). */
  nonBlocksAsBlocks: number;
}

/** One read text with its verdict, for the report's lists. */
export interface Verdict {
  entry: CorpusEntry;
  reading: Reading;
  verdict:
    | 'credit-right'
    | 'credit-to-review'
    | 'credit-wrong-amount'
    | 'non-credit-as-credit'
    | 'non-credit-ok';
}

/** Reads every text of the corpus with `read` and gives each its verdict. */
export function judge(files: readonly CorpusFile[], read: CorpusReader): Verdict[] {
  return files.flatMap((f) =>
    f.entries.map((entry): Verdict => {
      const reading = read(entry);
      if (entry.expected.kind !== 'credit') {
        return {
          entry,
          reading,
          verdict: reading.kind === 'credit' ? 'non-credit-as-credit' : 'non-credit-ok',
        };
      }
      if (creditReadRight(entry, reading)) return { entry, reading, verdict: 'credit-right' };
      return {
        entry,
        reading,
        verdict: reading.kind === 'credit' ? 'credit-wrong-amount' : 'credit-to-review',
      };
    }),
  );
}

function emptyTally(bank: string, name: string, channel: Tally['channel']): Tally {
  return {
    bank,
    name,
    channel,
    texts: 0,
    credits: 0,
    creditsRight: 0,
    creditsToReview: 0,
    creditsWrongAmount: 0,
    nonCreditsAsCredits: 0,
    nonBlocksAsBlocks: 0,
  };
}

function count(t: Tally, v: Verdict): void {
  t.texts += 1;
  if (v.entry.expected.kind === 'credit') t.credits += 1;
  if (v.verdict === 'credit-right') t.creditsRight += 1;
  if (v.verdict === 'credit-to-review' || v.verdict === 'credit-wrong-amount') t.creditsToReview += 1;
  if (v.verdict === 'credit-wrong-amount') t.creditsWrongAmount += 1;
  if (v.verdict === 'non-credit-as-credit') t.nonCreditsAsCredits += 1;
  if (isFalseBlock(v)) t.nonBlocksAsBlocks += 1;
}

/** A text that is not the bank's block notice (a payer comment, a reminder...) read as a block. */
export function isFalseBlock(v: Verdict): boolean {
  return v.reading.kind === 'block' && v.entry.expected.kind !== 'block';
}

/** Per bank and channel (banks in file order, SMS before push), then one `all` row for the corpus. */
export function tally(files: readonly CorpusFile[], verdicts: readonly Verdict[]): Tally[] {
  const rows = new Map<string, Tally>();
  const total = emptyTally('all', 'All banks', 'all');
  const names = new Map(files.map((f) => [f.bank, f.name]));
  for (const f of files) {
    for (const channel of ['sms', 'push'] as const) {
      if (f.entries.some((e) => e.channel === channel)) {
        rows.set(`${f.bank}/${channel}`, emptyTally(f.bank, f.name, channel));
      }
    }
  }
  for (const v of verdicts) {
    const key = `${v.entry.bank}/${v.entry.channel}`;
    if (!rows.has(key))
      rows.set(key, emptyTally(v.entry.bank, names.get(v.entry.bank) ?? '', v.entry.channel));
    count(rows.get(key) as Tally, v);
    count(total, v);
  }
  return [...rows.values(), total];
}

/** The tallies as a markdown table (the one kept in docs/bank-messages.md). */
export function markdownTable(rows: readonly Tally[]): string {
  const head =
    '| Bank | Channel | Texts | Credits | Credits read right | Credits to review | of them wrong amount/ending | Non-credits read as credits | Non-blocks read as blocks |';
  const lines = [head, '|---|---|--:|--:|--:|--:|--:|--:|--:|'];
  for (const r of rows) {
    const bank = r.channel === 'all' ? '**All banks**' : `${r.name} (\`${r.bank}\`)`;
    lines.push(
      `| ${bank} | ${r.channel} | ${r.texts} | ${r.credits} | ${r.creditsRight} | ${r.creditsToReview} | ${r.creditsWrongAmount} | ${r.nonCreditsAsCredits} | ${r.nonBlocksAsBlocks} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The checks a learned rule passes before it is kept and before it is switched on (docs/decisions.md
 * "Rules learned from the review queue"). Pure: the caller gives the texts to check against.
 */
import { AppError, invalidField } from '../../lib/errors.js';
import { learnedFields, normaliseMessage } from '../bank-messages/index.js';

/** The longest pattern kept, in characters. */
export const MAX_PATTERN = 2000;
/** The named groups a learned rule may have; `amount` is required. */
const HOLES = new Set(['amount', 'mask', 'payer', 'balance']);
/** Texts no bank's format is: a pattern that reads one of them is too broad. */
const ANY_TEXTS = ['', ' ', '1', '100', '100 ₽', 'a 100 р', 'Код 1234', 'Баланс 100 ₽', 'x'.repeat(40)];
/** A pattern reading more than this share of every corpus text (of every bank) is too broad. */
const MAX_CORPUS_SHARE = 0.05;
/** Letters a pattern must keep word for word (outside its holes and escapes). */
const MIN_LETTERS = 6;

/** An unbounded quantifier at `i` of a pattern's source (`+`, `*`, `{n,}`), or 0 characters. */
function unboundedAt(source: string, i: number): number {
  const c = source[i];
  if (c === '+' || c === '*') return 1;
  const m = c === '{' ? /^\{\d+,\}/.exec(source.slice(i)) : null;
  return m ? m[0].length : 0;
}

/**
 * Whether the pattern repeats without bound a group that itself repeats without bound (`(a+)+`,
 * `(?:x*y)*`), the shape that can take exponential time on a long text. Escapes and character
 * classes are skipped.
 */
export function nestsQuantifiers(source: string): boolean {
  const open: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      inClass = c !== ']';
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') open.push(false);
    else if (c === ')') {
      const inner = open.pop() ?? false;
      const repeated = unboundedAt(source, i + 1) > 0;
      if (inner && repeated) return true;
      if ((inner || repeated) && open.length > 0) open[open.length - 1] = true;
    } else if (unboundedAt(source, i) > 0 && open.length > 0) open[open.length - 1] = true;
  }
  return false;
}

/**
 * The compiled pattern (flags `iu`). Throws VALIDATION_ERROR (field `pattern`) when it is not a
 * regular expression, is too long, repeats a repetition (or has more than 3 `.*`/`.+`), or has a
 * named group other than the holes or no `amount` hole.
 */
export function compilePattern(source: string): RegExp {
  if (source.length === 0 || source.length > MAX_PATTERN)
    throw invalidField('pattern', `must be 1 to ${MAX_PATTERN} characters`);
  let re: RegExp;
  try {
    re = new RegExp(source, 'iu');
  } catch {
    throw invalidField('pattern', 'is not a valid regular expression');
  }
  if (nestsQuantifiers(source) || (source.match(/\.[*+]/g)?.length ?? 0) > 3)
    throw invalidField('pattern', 'repeats a repetition (may take too long on a long text)');
  const names = [...source.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((m) => m[1] ?? '');
  const unknown = names.find((n) => !HOLES.has(n));
  if (unknown)
    throw invalidField('pattern', `has a group named ${unknown}; holes are amount, mask, payer, balance`);
  if (!names.includes('amount')) throw invalidField('pattern', 'has no (?<amount>...) hole');
  return re;
}

/** How a pattern reads one normalised text: the amount and ending of its holes, or undefined. */
export function readByPattern(re: RegExp, text: string): { amount: string; mask?: string } | undefined {
  const groups = re.exec(normaliseMessage(text))?.groups;
  const fields = groups ? learnedFields(groups) : undefined;
  if (!fields?.amount) return undefined;
  return { amount: fields.amount, ...(fields.mask ? { mask: fields.mask } : {}) };
}

/**
 * Throws RULE_TOO_BROAD when the pattern reads a text no bank writes (an empty or one-word text),
 * keeps fewer than 6 letters word for word, or reads more than 5% of the corpus's texts.
 */
export function assertNarrow(re: RegExp, corpusTexts: readonly string[]): void {
  const letters = re.source
    .replace(/\(\?<\w+>/g, '')
    .replace(/\\[a-zA-Z]/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .match(/\p{L}/gu);
  if ((letters?.length ?? 0) < MIN_LETTERS)
    throw new AppError('RULE_TOO_BROAD', [{ field: 'pattern', problem: 'keeps too few words of the text' }]);
  const any = ANY_TEXTS.find((t) => re.test(normaliseMessage(t)));
  if (any !== undefined)
    throw new AppError('RULE_TOO_BROAD', [{ field: 'pattern', problem: `reads any text, e.g. "${any}"` }]);
  const read = corpusTexts.filter((t) => re.test(normaliseMessage(t))).length;
  if (read > Math.max(3, corpusTexts.length * MAX_CORPUS_SHARE))
    throw new AppError('RULE_TOO_BROAD', [
      { field: 'pattern', problem: `reads ${read} of the corpus's ${corpusTexts.length} texts` },
    ]);
}

/** A stored text that is not a credit: a corpus entry or a message decided in the database. */
export interface NonCredit {
  /** `corpus sber-173 (debit)` or `message <id> (debit)`. */
  name: string;
  text: string;
  title?: string;
}

/**
 * Throws RULE_READS_NON_CREDIT naming the first text the pattern reads (a learned rule reads only
 * credits, so any text it reads would be a credit), its name and its words.
 */
export function assertReadsNoNonCredit(re: RegExp, texts: Iterable<NonCredit>): void {
  for (const t of texts) {
    const read = [t.text, t.title ? `${t.title} ${t.text}` : undefined].some(
      (x) => x !== undefined && readByPattern(re, x) !== undefined,
    );
    if (read)
      throw new AppError('RULE_READS_NON_CREDIT', [
        { field: t.name, problem: `reads "${t.text}" as a credit` },
      ]);
  }
}

import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/** First characters a spreadsheet reads as the start of a formula (OWASP "CSV Injection"). */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);
/** A plain signed decimal (a debit "-100.00"): a number to a spreadsheet, never a formula. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A cell as data, never code (OWASP "CSV Injection"; docs/decisions.md section 37): text that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading single quote, so a
 * spreadsheet shows it instead of running it. A plain signed decimal stays as it is.
 */
export function neutraliseCell(value: string): string {
  if (value.length === 0 || !FORMULA_START.has(value.charAt(0)) || PLAIN_NUMBER.test(value)) return value;
  return `'${value}`;
}

/**
 * Streams rows through csv-stringify with a header row: the database is read a page at a time and
 * the answer written as it goes, so no export is held in memory whatever its size (docs/decisions.md sections 28 and 32).
 * Joined with `pipeline`, not `pipe`: a failed read (the database gone mid-export) ends the CSV
 * stream with that error, so the answer is cut off instead of left open, and a client that goes away
 * stops the reads. Every text cell goes through `neutraliseCell`: exports are data, not code.
 */
export function csvStream(
  columns: readonly string[],
  rows: AsyncIterable<Record<string, unknown>>,
): Readable {
  const out = stringify({
    header: true,
    columns: [...columns],
    cast: { boolean: (b) => String(b), string: neutraliseCell },
  });
  // The error reaches `out` (destroyed with it), whose reader (the HTTP answer) reports it.
  return pipeline(Readable.from(rows), out, () => {});
}

import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * Streams rows through csv-stringify with a header row: the database is read a page at a time and
 * the answer written as it goes, so no export is held in memory whatever its size (issues 21, 23).
 * Joined with `pipeline`, not `pipe`: a failed read (the database gone mid-export) ends the CSV
 * stream with that error, so the answer is cut off instead of left open, and a client that goes away
 * stops the reads.
 */
export function csvStream(
  columns: readonly string[],
  rows: AsyncIterable<Record<string, unknown>>,
): Readable {
  const out = stringify({ header: true, columns: [...columns], cast: { boolean: (b) => String(b) } });
  // The error reaches `out` (destroyed with it), whose reader (the HTTP answer) reports it.
  return pipeline(Readable.from(rows), out, () => {});
}

import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * Streams rows through csv-stringify with a header row: the database is read a page at a time and
 * the answer written as it goes, so no export is held in memory whatever its size (issues 21, 23).
 */
export function csvStream(
  columns: readonly string[],
  rows: AsyncIterable<Record<string, unknown>>,
): Readable {
  const out = stringify({ header: true, columns: [...columns], cast: { boolean: (b) => String(b) } });
  Readable.from(rows).pipe(out);
  return out;
}

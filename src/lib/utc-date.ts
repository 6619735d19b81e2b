import { invalidField } from './errors.js';

const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * Parses `YYYY-MM-DD HH:MM:SS` (or `YYYY-MM-DD`) as UTC (docs/decisions.md section 12, the list filters).
 * Throws VALIDATION_ERROR naming `field` for anything else, an impossible date (Feb 30) or a year
 * outside 1970-9000.
 */
export function parseUtcDateTime(field: string, value: string): Date {
  const m = UTC_DATE_TIME.exec(value.trim());
  const parts = m ? [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) : [];
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = parts;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // Date.UTC rolls over (Feb 30 -> Mar 1, 25:00 -> next day): a real date reads back the same.
  const exact =
    m !== null &&
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  if (!exact || y < 1970 || y > 9000)
    throw invalidField(field, 'must be a real date from 1970 to 9000, YYYY-MM-DD HH:MM:SS (UTC)');
  return date;
}

/**
 * The exclusive end of a period given as its last day or last second: a bare date `YYYY-MM-DD`
 * covers that whole day, a date and time that second.
 */
export function parseUtcPeriodEnd(field: string, value: string): Date {
  const start = parseUtcDateTime(field, value);
  return new Date(start.getTime() + (value.trim().length === 10 ? 86_400_000 : 1000));
}

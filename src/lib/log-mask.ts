import { redactText } from './redact.js';

/** Card numbers (16-19 digits) and phones (10-15 digits, optional +), possibly grouped by spaces or dashes. */
const SENSITIVE = /\+?\d(?:[ -]?\d){9,18}/g;

/** Keeps the last 4 digits of a long digit run: "2200123412341234" -> "************1234". */
export function maskDigits(text: string): string {
  return text.replace(SENSITIVE, (match) => {
    const digits = match.replace(/\D/g, '');
    return `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
  });
}

/**
 * Masks card numbers and phones in every string of a log record (card numbers and phones masked in
 * logs) and redacts the URLs in it (`redactText`, docs/decisions.md section 34), down to a few levels
 * of nesting. Ids (UUIDs, lux...) have letters or hyphens every
 * few digits and stay readable.
 */
export function maskLogRecord(value: unknown, depth = 0): unknown {
  // Provider URLs (credentials, keys in the query or path) are redacted as everywhere else.
  if (typeof value === 'string') return maskDigits(redactText(value));
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskLogRecord(v, depth + 1));
  // Requests, replies and errors keep their own shape: their serializers run later.
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskLogRecord(v, depth + 1);
  return out;
}

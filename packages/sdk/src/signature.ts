/**
 * Request signing and webhook verification (docs/api.md "Authentication"): the signature is the
 * lower-case hex SHA-256 of `<API_KEY>|<body>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The request / webhook signature: lowercase hex SHA-256 of `<API_KEY>|<body>`, where `body` is the
 * exact bytes sent ('' for GET requests and multipart uploads).
 */
export function sign(apiKey: string, body: string | Uint8Array = ''): string {
  return createHash('sha256').update(`${apiKey}|`, 'utf8').update(body).digest('hex');
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * True when `header` (the webhook's `x-api-key`) is the signature of `rawBody` under `apiKey`.
 * Pass the raw bytes exactly as received, before any JSON parsing. The comparison is constant-time
 * (`timingSafeEqual` on two 32-byte buffers); a missing, malformed or wrong-length header is false.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | undefined | null,
  apiKey: string,
): boolean {
  if (typeof header !== 'string') return false;
  const given = header.trim();
  // Strict shape first: Buffer.from(hex) silently stops at the first non-hex character.
  if (!HEX_SHA256.test(given)) return false;
  const expected = createHash('sha256').update(`${apiKey}|`, 'utf8').update(rawBody).digest();
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

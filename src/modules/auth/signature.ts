import { createHash } from 'node:crypto';
import { safeEqual } from '../../lib/secrets.js';

/**
 * Signature of a body: lowercase hex SHA-256 of `<API_KEY>|<body>` (docs/api.md
 * "Authentication"; the same for webhooks, rule 8). `body` is the exact bytes, or '' for GET/multipart.
 */
export function signBody(apiKey: string, body: string | Buffer): string {
  return createHash('sha256').update(`${apiKey}|`, 'utf8').update(body).digest('hex');
}

/** `\uXXXX`-escapes every non-ASCII UTF-16 unit, as clients that sign with ASCII-only JSON do. */
export function escapeNonAscii(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The texts a request signature may cover, in the order they are tried (docs/decisions.md section 4):
 * the raw body bytes; then, for a parsed JSON body, its compact re-serialisation (keys in received
 * order) with non-ASCII as UTF-8, and the same with non-ASCII escaped as `\uXXXX`.
 */
export function* signedTextCandidates(raw: Buffer, parsed: unknown): Generator<string | Buffer> {
  yield raw;
  if (parsed === undefined) return;
  const compact = JSON.stringify(parsed);
  if (compact === undefined) return;
  yield compact;
  const escaped = escapeNonAscii(compact);
  if (escaped !== compact) yield escaped;
}

/**
 * True when `header` is the signature of one of the candidate texts. Each comparison is
 * constant-time; the candidate count does not depend on the key.
 */
export function verifySignature(
  apiKey: string,
  header: string,
  candidates: Iterable<string | Buffer>,
): boolean {
  const given = header.trim().toLowerCase();
  let ok = false;
  for (const text of candidates) {
    if (safeEqual(signBody(apiKey, text), given)) ok = true;
  }
  return ok;
}

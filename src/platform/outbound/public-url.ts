import { invalidField } from '../../lib/errors.js';
import { type Allowlist, isForbiddenLiteralHost } from './address-policy.js';

/**
 * A merchant-given URL that someone will open: a webhook target we connect to, or a page or image the
 * payer's browser opens (docs/decisions.md section 31: `return_url`, `logo_url`). Absolute, at most 2048 characters, with
 * one of `protocols` (http and https by default), and not written as a private, loopback, link-local
 * or metadata address or `localhost` unless `allowlist` allows it (names are checked again when we
 * connect). Returns the value as given, or null for none (undefined, null or ''). Throws
 * VALIDATION_ERROR naming `field`.
 */
export function publicUrl(
  value: string | null | undefined,
  allowlist: Allowlist,
  field: string,
  protocols: readonly string[] = ['http:', 'https:'],
): string | null {
  if (value === undefined || value === null || value === '') return null;
  const wanted = protocols.length === 1 ? 'an absolute https URL' : 'an absolute http(s) URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField(field, `must be ${wanted}`);
  }
  if (value.length > 2048 || !protocols.includes(url.protocol))
    throw invalidField(field, `must be ${wanted}`);
  if (isForbiddenLiteralHost(url, allowlist)) {
    throw invalidField(field, 'must be a public address, not a private or local one');
  }
  return value;
}

import { invalidField } from '../../lib/errors.js';
import { type Allowlist, publicUrl } from '../../platform/outbound/index.js';
import type { NewMerchantRow } from './merchants-repository.js';

/** What the payment form shows of the merchant (docs/decisions.md section 31), as the admin API and the portal take it. */
export interface BrandingInput {
  /** 1 to 80 printable characters; null or '' clears it. */
  display_name?: string | null;
  /** An https URL of the logo (the payer's browser loads it); null or '' clears it. */
  logo_url?: string | null;
  /** A public http(s) URL for the form's "back to the shop" button; null or '' clears it. */
  return_url?: string | null;
}

/** Control characters and the bidirectional overrides that could make a shop name read as another. */
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/**
 * Validates the branding fields and maps them to columns; only the fields present are returned.
 * URLs follow the callback URL rule (public addresses only, unless allowlisted); the logo must be
 * https, since the form never loads a picture over plain http. Throws VALIDATION_ERROR naming the field.
 */
export function brandingToColumns(input: BrandingInput, allowlist: Allowlist): Partial<NewMerchantRow> {
  const out: Partial<NewMerchantRow> = {};
  if (input.display_name !== undefined) {
    const name = (input.display_name ?? '').trim();
    if (name.length > 80 || UNPRINTABLE.test(name))
      throw invalidField('display_name', 'must be at most 80 printable characters');
    out.displayName = name === '' ? null : name;
  }
  if (input.logo_url !== undefined)
    out.logoUrl = publicUrl(input.logo_url, allowlist, 'logo_url', ['https:']);
  if (input.return_url !== undefined) out.returnUrl = publicUrl(input.return_url, allowlist, 'return_url');
  return out;
}

/**
 * The outbound address guard (docs/decisions.md sections 9 and 11): what merchant-given URLs
 * (webhooks, receipt URLs) may reach, checked at connect time and, for literals, at creation.
 */
export { type Allowlist, isForbiddenLiteralHost, parseAllowlist } from './address-policy.js';
export {
  createOutboundGuard,
  ForbiddenAddressError,
  type OutboundGuard,
  type Resolver,
} from './outbound-guard.js';
export { publicUrl } from './public-url.js';

/**
 * Merchants and their API keys (docs/decisions.md section 4): settings, keys stored as a digest and
 * a ciphertext, the cross-process cache invalidation.
 */

export type { ApiKeyStatus, ApiKeyView } from './api-key-list.js';
export type { BrandingInput } from './merchant-branding.js';
export { merchantsAdminRoutes } from './merchants-admin-routes.js';
export { findMerchant, type KeyMode, type MerchantRow } from './merchants-repository.js';
export {
  createMerchantsService,
  type MerchantSettingsInput,
  type MerchantsService,
  type MerchantView,
  notifyCaches,
  TEST_KEY_PREFIX,
} from './merchants-service.js';

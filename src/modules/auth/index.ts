/** The merchant API's authentication (docs/api.md "Authentication"; docs/decisions.md section 4). */
export { assertOwnMerchantId, createMerchantAuth, merchantOf } from './merchant-auth.js';
export { signBody } from './signature.js';

/** Crypto PAYIN (issue 4; docs/decisions.md sections 6 and 8). */
export { chainRoutes, cryptoAdminRoutes } from './crypto-routes.js';
export { type CryptoService, createCryptoService } from './crypto-service.js';

/** Crypto PAYIN (docs/decisions.md sections 6 and 8). */

export type { AwaitingTransfer, ObservedTransfer } from './chain-transfers.js';
export { chainRoutes, cryptoAdminRoutes } from './crypto-routes.js';
export { normaliseTxHash } from './crypto-rules.js';
export { type CryptoService, createCryptoService } from './crypto-service.js';

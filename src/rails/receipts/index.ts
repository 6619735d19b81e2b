/**
 * Receipts (docs/api.md "POST /merchant/receipt/upload"; docs/decisions.md section 9): upload by
 * file or URL, content checks, storage, moderation; payouts' proofs of transfer.
 */
export { MAX_RECEIPT_BYTES } from './receipt-content.js';
export { openReceiptStorage, type ReceiptStorage } from './receipt-storage.js';
export type { ReceiptRow, StoredFile } from './receipts-repository.js';
export { receiptsAdminRoutes, receiptsRoutes } from './receipts-routes.js';
export {
  createReceiptsService,
  type ReceiptsService,
  type ReceiptView,
  receiptView,
  type Within,
} from './receipts-service.js';

/**
 * Orders (docs/architecture.md): the only writer of the `orders` and `order_events` tables. Other
 * modules create, read and move orders through what this file exports: the lifecycle (the only
 * code that changes a status), the builder of new rows, and the few queries they need.
 */
export type { TakeOffer } from './create-fiat-payin.js';
export type { CryptoPayinCommand, PayoutCommand } from './create-order-command.js';
export { callbackUrl, checkLimits } from './create-order-input.js';
export { disableAfterExpiredStreak } from './expired-streak.js';
export { type HolderGate, holderPendingSums } from './holder-exposure.js';
export { newOrderRow } from './new-order.js';
export { adminOrderView, eventActor } from './order-admin-view.js';
export {
  createOrderLifecycle,
  type MoveHook,
  type OrderLifecycle,
  type OrderMove,
  type SuccessHook,
} from './order-lifecycle.js';
export { type OrderInfo, type OrderRow, orderInfo, remainingSeconds } from './order-view.js';
export { ordersAdminRoutes } from './orders-admin-routes.js';
export { listQueue, modeFilter, type OrderFilter, streamOrders } from './orders-lists.js';
export { lockOrderByAnyId, orderIdNamed } from './orders-named.js';
export {
  assignPayout,
  type CandidateOrder,
  candidateOrders,
  cryptoAddressesToWatch,
  cryptoOrdersAtAddress,
  cryptoOrdersAwaitingQuote,
  depositAddressInUse,
  expiredPayinsOn,
  ordersForCredit,
  paidPayinsOn,
  setCryptoQuote,
} from './orders-queries.js';
export {
  assertNewExternalId,
  findOrderById,
  insertOrder,
  lockOrder,
  recordReceivedAmount,
  setReceiptStatus,
} from './orders-repository.js';
export { ordersRoutes } from './orders-routes.js';
export { amountAfterFee, computeFee } from './orders-rules.js';
export { OrderIdParams, OrderResponseSchema } from './orders-schemas.js';
export { createOrdersService, type OrdersService } from './orders-service.js';
export { createClaim } from './requisite-claim.js';
export { requisiteLoads } from './requisite-loads.js';
export { sandboxDepositAddress } from './sandbox-details.js';

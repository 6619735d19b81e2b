/**
 * Orders (docs/architecture.md): the only writer of the `orders` and `order_events` tables. Other
 * modules create, read and move orders through what this file exports: the lifecycle (the only
 * code that changes a status), the builder of new rows, and the few queries they need.
 */
export type { TakeOffer } from './create-fiat-payin.js';
export {
  type CreateOrderCommand,
  type CryptoPayinCommand,
  type ParseContext,
  type PayoutCommand,
  parseCreateOrder,
} from './create-order-command.js';
export { callbackUrl, checkLimits } from './create-order-input.js';
export {
  type NewOrderDraft,
  type NewOrderFigures,
  newOrderRow,
  type PaymentDetailsColumns,
} from './new-order.js';
export { adminOrderView, eventActor } from './order-admin-view.js';
export {
  createOrderLifecycle,
  type MoveHook,
  type OrderLifecycle,
  type OrderMove,
  type PayinCredit,
  type SuccessHook,
  type TransitionContext,
} from './order-lifecycle.js';
export { type OrderInfo, type OrderRow, orderInfo, remainingSeconds } from './order-view.js';
export { ordersAdminRoutes } from './orders-admin-routes.js';
export { lockOrderByAnyId, orderIdNamed } from './orders-named.js';
export {
  assignPayout,
  type CandidateOrder,
  type CreditOnRequisite,
  candidateOrders,
  cryptoAddressesToWatch,
  cryptoOrdersAtAddress,
  cryptoOrdersAwaitingQuote,
  depositAddressInUse,
  expiredPayinsOn,
  lateOrderForCredit,
  type OrderForCredit,
  ordersForCredit,
  paidPayinsOn,
  pendingOrdersForCredit,
  setCryptoQuote,
} from './orders-queries.js';
export {
  DuplicateOrderError,
  externalIdTaken,
  findOrderById,
  insertOrder,
  listQueue,
  lockOrder,
  type NewOrderRow,
  type OrderFilter,
  type OrderPatch,
  patchOrder,
  streamOrders,
} from './orders-repository.js';
export { ordersRoutes } from './orders-routes.js';
export { amountAfterFee, computeFee } from './orders-rules.js';
export { OrderIdParams, OrderResponseSchema } from './orders-schemas.js';
export {
  type CryptoConfirmInput,
  createOrdersService,
  type ModeHandlers,
  type OrdersService,
} from './orders-service.js';
export { ReportsSchema } from './reports-schemas.js';
export { createClaim, disableAfterExpiredStreak, requisiteLoads } from './requisite-claim.js';
export { SANDBOX_HOLDER, sandboxDepositAddress, sandboxPaymentDetails } from './sandbox-details.js';

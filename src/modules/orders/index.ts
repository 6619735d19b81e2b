/**
 * Orders (docs/architecture.md "What orders offers"): the only writer of the `orders` and
 * `order_events` tables. Other modules get commands, not a patch: the lifecycle (the only code that
 * changes a status), the named writes of `orderCommands`, the service and its routes, the views and
 * rules of an order, and `ordersForReading`, the table for their own selects (never written outside
 * this module: scripts/check-order-writes.ts, run by `npm run lint`).
 */
export type { CryptoPayinCommand, PayoutCommand } from './create-order-command.js';
export { checkLimits } from './create-order-input.js';
export { adminOrderView } from './order-admin-view.js';
export * as orderCommands from './order-commands.js';
export * as orderCsv from './order-csv.js';
export {
  createOrderLifecycle,
  type MoveHook,
  type OrderLifecycle,
  type OrderMove,
  type SuccessHook,
} from './order-lifecycle.js';
export * as orderQueries from './order-queries.js';
export { type OrderRow, orderInfo, remainingSeconds } from './order-view.js';
export { ordersAdminRoutes } from './orders-admin-routes.js';
export { ordersForReading } from './orders-for-reading.js';
export { modeFilter, type OrderFilter, streamOrders } from './orders-lists.js';
export { ordersRoutes } from './orders-routes.js';
export { amountAfterFee, computeFee } from './orders-rules.js';
export { OrderIdParams, OrderResponseSchema } from './orders-schemas.js';
export { createOrdersService, type OrdersService } from './orders-service.js';
export { requisiteLoads } from './requisite-loads.js';

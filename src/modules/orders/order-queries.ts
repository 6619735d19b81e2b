/**
 * The orders module's named reads for other modules (docs/architecture.md "What orders offers"),
 * exported as one group (`orderQueries`): an order by id, an order locked for its move (by internal
 * id, or by an operator's id of either kind), and the holders' pending exposure for operators.
 */
export { holderPendingSums } from './holder-exposure.js';
export { lockOrderByAnyId } from './orders-named.js';
export { findOrderById, lockOrder } from './orders-repository.js';

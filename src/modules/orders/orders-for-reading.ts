import { orders } from '../../db/tables/orders.js';

/**
 * The orders table as other modules may use it: in their own selects (a rail's reads live with the
 * rail: `crypto/crypto-order-reads.ts`, `devices/device-order-reads.ts`, `payouts/payout-order-reads.ts`),
 * joins and SQL fragments that read it. Never written outside this module: an insert, update or
 * delete through it, or handing it on, fails `npm run lint` (scripts/check-order-writes.ts); the
 * writes are `orderCommands` and the lifecycle.
 */
export const ordersForReading = orders;

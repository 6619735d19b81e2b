/** PAYOUT orders (docs/decisions.md sections 6 and 10): holds, the operators' queue, proofs. */
export { bankStandardsRoutes, payoutsAdminRoutes } from './payouts-routes.js';
export { createPayoutsService, type PayoutsService } from './payouts-service.js';

/** Requisite pool offers (docs/decisions.md section 23): published, listed to merchants, taken by one order. */

export { PublishedOfferSchema } from './pool-admin-schemas.js';
export { OfferInput, poolAdminRoutes, poolMerchantRoutes } from './pool-routes.js';
export { createPoolService, type PoolService } from './pool-service.js';

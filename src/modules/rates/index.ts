/** Exchange rates (docs/decisions.md section 6): operators' and the provider's, fresh or missing. */
export { ratesAdminRoutes } from './rates-admin-routes.js';
export { fetchProviderRates } from './rates-provider.js';
export { createRatesService, type RatesService } from './rates-service.js';

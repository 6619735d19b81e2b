/**
 * Exchange rates (docs/decisions.md sections 6 and 22): operators' rates with an
 * expiry, the sources' quotes (CoinGecko, Rapira, the CBR, the generic provider), their median and
 * its history.
 */
export { ratesAdminRoutes } from './rates-admin-routes.js';
export { fetchProviderRates } from './rates-provider.js';
export { createRatesRefresh, type RatesRefresh } from './rates-refresh.js';
export { applyPayinMarkup } from './rates-rules.js';
export { createRatesService, type RatesService } from './rates-service.js';
export { buildRateSources, type RateSource } from './sources/index.js';

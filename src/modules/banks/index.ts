/** Banks for payouts (`GET /merchant/banks`) and the same-bank codes of requisites. */
export { banksAdminRoutes, banksRoutes } from './banks-routes.js';
export { type BankRow, type BanksService, bankSourcesOf, createBanksService } from './banks-service.js';

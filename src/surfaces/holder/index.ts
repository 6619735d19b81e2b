/**
 * The requisite holder's own page (docs/decisions.md "The holder's own page"): sign-in with password
 * and TOTP on the shared session stack, the holder's phones, requisites, today's orders, money,
 * statement and the missed-payment report, over the holders module's, the devices rail's and the
 * receipts rail's public interfaces.
 */
export { createHolderPage, type HolderPage } from './holder-page-service.js';
export { holderPageRoutes } from './holder-routes.js';

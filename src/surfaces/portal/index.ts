/**
 * The merchant portal (docs/decisions.md section 28; docs/api.md "Merchant portal"): merchant users with
 * invitations, password and TOTP, sessions; the merchant's own orders, statement, appeals, keys and
 * streamed CSV exports over the other modules' public interfaces.
 */
export { portalAdminRoutes } from './portal-admin-routes.js';
export { portalRoutes } from './portal-routes.js';
export { createPortalService, type PortalService } from './portal-service.js';
export { createPortalUsers, type PortalUsers } from './portal-users.js';

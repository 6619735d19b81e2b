/** The operators' console at /backoffice (docs/api.md "Operator console"): pages over the same services as the admin API. */
export { backofficeRoutes } from './backoffice-routes.js';
export type { ConsoleServices } from './console-services.js';

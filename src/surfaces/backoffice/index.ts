/** The operators' console at /backoffice (issue 8): pages over the same services as the admin API. */
export { backofficeRoutes } from './backoffice-routes.js';
export type { ConsoleServices } from './console-services.js';

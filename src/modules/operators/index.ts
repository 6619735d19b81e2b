/** Operators (docs/decisions.md section 20): accounts, console sessions, API tokens, roles and what each may do. */
export { createAdminAuth } from './admin-auth.js';
export { operatorsAdminRoutes } from './operators-admin-routes.js';
export { createOperatorsService, type OperatorRow, type OperatorsService } from './operators-service.js';
export { can, type Permission, ROLES, type Role } from './permissions.js';

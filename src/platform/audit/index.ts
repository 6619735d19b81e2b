/** The append-only audit trail: written in the transaction of each change, read by operators. */
export { type AuditRecord, writeAudit } from './audit.js';
export { auditAdminRoutes } from './audit-routes.js';
export { type AuditFilter, type AuditService, createAuditService } from './audit-service.js';

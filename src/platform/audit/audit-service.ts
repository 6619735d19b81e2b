import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { auditLog } from '../../db/tables/audit.js';

/** Filters of the audit trail. */
export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Reads of the append-only audit trail (docs/api.md "Admin API"); writes go through writeAudit. */
export function createAuditService(deps: { database: Database }) {
  const db = deps.database.db;
  return {
    /** The trail, newest first, at most `limit` rows. */
    async list(f: AuditFilter, limit = 200) {
      const where: SQL | undefined = and(
        f.actor ? eq(auditLog.actor, f.actor) : undefined,
        f.action ? eq(auditLog.action, f.action) : undefined,
        f.targetId ? eq(auditLog.targetId, f.targetId) : undefined,
        f.from ? gte(auditLog.createdAt, f.from) : undefined,
        f.to ? lt(auditLog.createdAt, f.to) : undefined,
      );
      const rows = await db.select().from(auditLog).where(where).orderBy(desc(auditLog.id)).limit(limit);
      return rows.map((r) => ({
        id: r.id,
        at: r.createdAt.toISOString(),
        actor: r.actor,
        ip: r.ip,
        action: r.action,
        target_type: r.targetType,
        target_id: r.targetId,
        before: r.before,
        after: r.after,
      }));
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

import type { Executor } from '../../db/database.js';
import { auditLog } from '../../db/tables/audit.js';
import type { AdminActor } from '../../http/request-context.js';

/** One admin change for the append-only audit trail. `before`/`after` are JSON snapshots. */
export interface AuditRecord {
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Writes the audit row; call it inside the transaction of the change so that a change and its
 * trail commit together (style-examples: "audit log written in the same transaction").
 */
export async function writeAudit(ex: Executor, actor: AdminActor, record: AuditRecord): Promise<void> {
  await ex.insert(auditLog).values({
    actor: actor.name,
    ip: actor.ip,
    action: record.action,
    targetType: record.targetType,
    targetId: record.targetId,
    before: record.before ?? null,
    after: record.after ?? null,
  });
}

import { bigserial, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from '../columns.js';

// Tables of the audit module: only src/platform/audit/ reads and writes them (docs/architecture.md).

/** Append-only trail of every admin change: who, when, from where, what, before and after. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actor: text('actor').notNull(),
    ip: text('ip'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: createdAt(),
  },
  (t) => [index('audit_target_idx').on(t.targetType, t.targetId), index('audit_created_idx').on(t.createdAt)],
);

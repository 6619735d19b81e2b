import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/** One row of the audit trail as `GET /admin/audit` answers it (audit-service.ts `list`). */
export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  at: Type.String({ description: 'ISO 8601 UTC' }),
  actor: Type.String(),
  ip: Nullable(Type.String()),
  action: Type.String({ description: 'e.g. order.confirm, merchant.update' }),
  target_type: Type.String(),
  target_id: Type.String(),
  before: Type.Unknown({ description: 'JSON snapshot before the change, or null' }),
  after: Type.Unknown({ description: 'JSON snapshot after the change, or null' }),
});

import { Type } from '@sinclair/typebox';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { parseUtcDateTime } from '../../lib/utc-date.js';
import { AuditEntrySchema } from './audit-admin-schemas.js';
import type { AuditService } from './audit-service.js';

/** `GET /admin/audit`: the trail with filters (docs/api.md "Admin API"). */
export function auditAdminRoutes(app: App, deps: { audit: AuditService }) {
  app.get(
    '/admin/audit',
    {
      schema: {
        tags: ['admin'],
        querystring: Type.Object({
          actor: Type.Optional(Type.String({ maxLength: 100 })),
          action: Type.Optional(Type.String({ maxLength: 100 })),
          target_id: Type.Optional(Type.String({ maxLength: 200 })),
          from: Type.Optional(Type.String()),
          to: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        response: { 200: Envelope(Type.Array(AuditEntrySchema)), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        success: true as const,
        data: await deps.audit.list(
          {
            actor: q.actor,
            action: q.action,
            targetId: q.target_id,
            from: q.from ? parseUtcDateTime('from', q.from) : undefined,
            to: q.to ? parseUtcDateTime('to', q.to) : undefined,
          },
          q.limit ?? 200,
        ),
      };
    },
  );
}

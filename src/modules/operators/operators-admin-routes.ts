import { Type } from '@sinclair/typebox';
import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { auditLog } from '../../db/schema.js';
import { AnyObject, type App, Envelope, errorResponses } from '../../http/schemas.js';
import { parseUtcDateTime } from '../../lib/utc-date.js';
import { actorOf } from '../auth/admin-auth.js';
import type { OperatorsService } from './operators-service.js';
import { ROLES } from './permissions.js';

const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
const Username = Type.Object({ username: Type.String({ maxLength: 40 }) });

/** Filters of the audit trail. */
export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** The audit trail, newest first (append-only table written with every change). */
export async function listAudit(database: Database, f: AuditFilter, limit = 200) {
  const where: SQL | undefined = and(
    f.actor ? eq(auditLog.actor, f.actor) : undefined,
    f.action ? eq(auditLog.action, f.action) : undefined,
    f.targetId ? eq(auditLog.targetId, f.targetId) : undefined,
    f.from ? gte(auditLog.createdAt, f.from) : undefined,
    f.to ? lt(auditLog.createdAt, f.to) : undefined,
  );
  const rows = await database.db.select().from(auditLog).where(where).orderBy(desc(auditLog.id)).limit(limit);
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
}

/** Admin API for operators (issue 8 section 1) and the audit trail (section 3). */
export function operatorsAdminRoutes(app: App, deps: { operators: OperatorsService; database: Database }) {
  const { operators } = deps;
  app.post(
    '/admin/operators',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create an operator; without a password one is generated and shown once',
        body: Type.Object({
          username: Type.String({ maxLength: 40 }),
          role: Role,
          password: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await operators.create(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/operators',
    { schema: { tags: ['admin'], response: { 200: Envelope(Type.Array(AnyObject)), ...errorResponses } } },
    async () => ({ success: true as const, data: await operators.list() }),
  );
  app.patch(
    '/admin/operators/:username',
    {
      schema: {
        tags: ['admin'],
        params: Username,
        body: Type.Object({
          role: Type.Optional(Role),
          enabled: Type.Optional(Type.Boolean()),
          password: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await operators.update(request.params.username, request.body, actorOf(request)),
    }),
  );
  app.post(
    '/admin/operators/:username/tokens',
    {
      schema: {
        tags: ['admin'],
        summary: "Issue an API token (shown once) that acts with the operator's role",
        params: Username,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await operators.issueToken(request.params.username, request.body.name, actorOf(request)),
    }),
  );
  app.post(
    '/admin/operators/:username/tokens/revoke',
    {
      schema: {
        tags: ['admin'],
        params: Username,
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => {
      await operators.revokeTokens(request.params.username, actorOf(request));
      return { success: true as const, data: { username: request.params.username, revoked: true } };
    },
  );
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
        response: { 200: Envelope(Type.Array(AnyObject)), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        success: true as const,
        data: await listAudit(
          deps.database,
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

import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import {
  OperatorCreatedSchema,
  OperatorSchema,
  OperatorTokenSchema,
  RoleSchema,
  TokensRevokedSchema,
} from './operators-admin-schemas.js';
import type { OperatorsService } from './operators-service.js';

const Username = Type.Object({ username: Type.String({ maxLength: 40 }) });

/** Admin API for operators (issue 8 section 1). */
export function operatorsAdminRoutes(app: App, deps: { operators: OperatorsService }) {
  const { operators } = deps;
  app.post(
    '/admin/operators',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create an operator; without a password one is generated and shown once',
        body: Type.Object({
          username: Type.String({ maxLength: 40 }),
          role: RoleSchema,
          password: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Envelope(OperatorCreatedSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await operators.create(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/operators',
    {
      schema: { tags: ['admin'], response: { 200: Envelope(Type.Array(OperatorSchema)), ...errorResponses } },
    },
    async () => ({ success: true as const, data: await operators.list() }),
  );
  app.patch(
    '/admin/operators/:username',
    {
      schema: {
        tags: ['admin'],
        params: Username,
        body: Type.Object({
          role: Type.Optional(RoleSchema),
          enabled: Type.Optional(Type.Boolean()),
          password: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Envelope(OperatorSchema), ...errorResponses },
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
        response: { 200: Envelope(OperatorTokenSchema), ...errorResponses },
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
        response: { 200: Envelope(TokensRevokedSchema), ...errorResponses },
      },
    },
    async (request) => {
      await operators.revokeTokens(request.params.username, actorOf(request));
      return { success: true as const, data: { username: request.params.username, revoked: true as const } };
    },
  );
}

import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import {
  OperatorActionSchema,
  OperatorCreatedSchema,
  OperatorSchema,
  OperatorTokenSchema,
  RoleSchema,
  SessionViewSchema,
  TokensRevokedSchema,
  TokenViewSchema,
} from './operators-admin-schemas.js';
import type { OperatorsService } from './operators-service.js';

const Username = Type.Object({ username: Type.String({ maxLength: 40 }) });

const Item = Type.Object({ username: Type.String({ maxLength: 40 }), id: Type.String({ maxLength: 40 }) });
const done = (username: string, what: string) => ({
  success: true as const,
  data: { username, done: what },
});

type Deps = { operators: OperatorsService };

/** Operators themselves: created, listed, changed (role, enabled, password, IP allowlist). */
function accountRoutes(app: App, { operators }: Deps) {
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
          ip_allowlist: Type.Optional(
            Type.Array(Type.String({ maxLength: 60 }), {
              maxItems: 50,
              description:
                'Addresses and CIDR ranges the operator signs in and uses tokens from; [] allows all',
            }),
          ),
        }),
        response: { 200: Envelope(OperatorSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await operators.update(request.params.username, request.body, actorOf(request)),
    }),
  );
}

/** API tokens: issued (shown once), listed, revoked all at once or one by one. */
function tokenRoutes(app: App, { operators }: Deps) {
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

  app.get(
    '/admin/operators/:username/tokens',
    {
      schema: {
        tags: ['admin'],
        summary: "The operator's API tokens, live and revoked (never their values)",
        params: Username,
        response: { 200: Envelope(Type.Array(TokenViewSchema)), ...errorResponses },
      },
    },
    async (request) => ({ success: true as const, data: await operators.tokensOf(request.params.username) }),
  );
  app.post(
    '/admin/operators/:username/tokens/:id/revoke',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revoke one API token; the others keep working',
        params: Item,
        response: { 200: Envelope(OperatorActionSchema), ...errorResponses },
      },
    },
    async (request) => {
      await operators.revokeTokens(request.params.username, actorOf(request), request.params.id);
      return done(request.params.username, 'token_revoked');
    },
  );
}

/** Console sessions listed and ended; the second factor reset after a lost phone. */
function sessionRoutes(app: App, { operators }: Deps) {
  app.get(
    '/admin/operators/:username/sessions',
    {
      schema: {
        tags: ['admin'],
        summary: "The operator's live console sessions",
        params: Username,
        response: { 200: Envelope(Type.Array(SessionViewSchema)), ...errorResponses },
      },
    },
    async (request) => {
      const op = (await operators.list()).find((o) => o.username === request.params.username);
      if (!op) throw new AppError('NOT_FOUND');
      return { success: true as const, data: await operators.sessionsOf(op) };
    },
  );
  app.post(
    '/admin/operators/:username/sessions/:id/revoke',
    {
      schema: {
        tags: ['admin'],
        summary: 'End one console session of the operator',
        params: Item,
        response: { 200: Envelope(OperatorActionSchema), ...errorResponses },
      },
    },
    async (request) => {
      await operators.revokeSession(request.params.username, request.params.id, actorOf(request));
      return done(request.params.username, 'session_revoked');
    },
  );
  app.post(
    '/admin/operators/:username/two-factor/reset',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Reset the operator's two-factor (a lost phone): sessions end; enrolment again at the next sign-in",
        params: Username,
        response: { 200: Envelope(OperatorActionSchema), ...errorResponses },
      },
    },
    async (request) => {
      await operators.resetMfa(request.params.username, actorOf(request));
      return done(request.params.username, 'two_factor_reset');
    },
  );
}

/** Admin API for operators (docs/decisions.md section 20). */
export function operatorsAdminRoutes(app: App, deps: Deps) {
  accountRoutes(app, deps);
  tokenRoutes(app, deps);
  sessionRoutes(app, deps);
}

import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, PathParam } from '../../platform/sessions/index.js';
import { needs, userOf } from './backoffice-session.js';
import { confirmFirst } from './console-confirm.js';
import { act } from './console-messages.js';
import { render } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

const UsernameParams = Type.Object({ username: PathParam });

/** The operator called `username`, or NOT_FOUND. */
async function operatorNamed(services: ConsoleServices, username: string) {
  const op = (await services.operators.list()).find((o) => o.username === username);
  if (!op) throw new AppError('NOT_FOUND');
  return op;
}

const page = (username: string) => `/backoffice/operators/${encodeURIComponent(username)}`;

/**
 * An operator's page for admins (docs/decisions.md section 32): the operator's sessions and API tokens, each
 * ended or revoked alone; a new token (shown once); the IP allowlist; a two-factor reset after a
 * confirmation.
 */
export function operatorPages(pages: App, services: ConsoleServices) {
  const { operators } = services;
  const named = (username: string) => operatorNamed(services, username);

  pages.get(
    '/backoffice/operators/:username',
    { preValidation: needs('operators.manage'), schema: { params: UsernameParams } },
    async (request, reply) => {
      const op = await named(request.params.username);
      const [sessions, tokens] = await Promise.all([
        operators.sessionsOf(op),
        operators.tokensOf(op.username),
      ]);
      return render(request, reply, 'operator.eta', { op, sessions, tokens, newToken: null });
    },
  );

  pages.post(
    '/backoffice/operators/:username/tokens',
    {
      preValidation: needs('operators.manage'),
      schema: { params: UsernameParams, body: FormBody({ name: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const op = await named(request.params.username);
      const issued = await operators.issueToken(
        op.username,
        String(form.name ?? '').slice(0, 100) || 'token',
        user.actor,
      );
      const [sessions, tokens] = await Promise.all([
        operators.sessionsOf(op),
        operators.tokensOf(op.username),
      ]);
      // The token is shown once, in this answer only.
      return render(request, reply, 'operator.eta', { op, sessions, tokens, newToken: issued.token });
    },
  );

  pages.post(
    '/backoffice/operators/:username/allowlist',
    {
      preValidation: needs('operators.manage'),
      schema: { params: UsernameParams, body: FormBody({ ip_allowlist: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { username } = request.params;
      return act(reply, page(username), async () => {
        const entries = String(form.ip_allowlist ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
        await operators.update(username, { ip_allowlist: entries }, user.actor);
        return entries.length ? 'ipAllowlistSaved' : 'ipAllowlistCleared';
      });
    },
  );

  pages.post(
    '/backoffice/operators/:username/two-factor/reset',
    {
      preValidation: needs('operators.manage'),
      schema: { params: UsernameParams, body: FormBody({}) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { username } = request.params;
      const asked = confirmFirst(request, reply, form, {
        kind: 'resetMfa',
        values: { username },
        back: page(username),
        permission: 'operators.manage',
      });
      if (asked) return asked;
      return act(reply, page(username), async () => {
        await operators.resetMfa(username, user.actor);
        return 'mfaReset';
      });
    },
  );

  for (const kind of ['sessions', 'tokens'] as const) {
    pages.post(
      `/backoffice/operators/:username/${kind}/:id/revoke`,
      {
        preValidation: needs('operators.manage'),
        schema: { params: Type.Object({ username: PathParam, id: PathParam }), body: FormBody({}) },
      },
      async (request, reply) => {
        const user = userOf(request);
        const { username, id } = request.params;
        return act(reply, page(username), async () => {
          if (kind === 'sessions') await operators.revokeSession(username, id, user.actor);
          else await operators.revokeTokens(username, user.actor, id);
          return kind === 'sessions' ? 'sessionEnded' : 'tokenRevoked';
        });
      },
    );
  }
}

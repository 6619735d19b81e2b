import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { checkCsrf, requirePermission } from './backoffice-session.js';
import { confirmFirst } from './console-confirm.js';
import { act } from './console-messages.js';
import { type Form, render } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

/**
 * An operator's page for admins (docs/decisions.md section 32): the operator's sessions and API tokens, each
 * ended or revoked alone; a new token (shown once); the IP allowlist; a two-factor reset after a
 * confirmation.
 */
export function operatorPages(pages: App, services: ConsoleServices) {
  const { operators } = services;
  const named = async (username: string) => {
    const op = (await operators.list()).find((o) => o.username === username);
    if (!op) throw new AppError('NOT_FOUND');
    return op;
  };
  const page = (username: string) => `/backoffice/operators/${encodeURIComponent(username)}`;

  pages.get('/backoffice/operators/:username', async (request, reply) => {
    requirePermission(request, 'operators.manage');
    const op = await named((request.params as { username: string }).username);
    const [sessions, tokens] = await Promise.all([operators.sessionsOf(op), operators.tokensOf(op.username)]);
    return render(request, reply, 'operator.eta', { op, sessions, tokens, newToken: null });
  });

  pages.post('/backoffice/operators/:username/tokens', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'operators.manage');
    const op = await named((request.params as { username: string }).username);
    const issued = await operators.issueToken(
      op.username,
      String(form.name ?? '').slice(0, 100) || 'token',
      user.actor,
    );
    const [sessions, tokens] = await Promise.all([operators.sessionsOf(op), operators.tokensOf(op.username)]);
    // The token is shown once, in this answer only.
    return render(request, reply, 'operator.eta', { op, sessions, tokens, newToken: issued.token });
  });

  pages.post('/backoffice/operators/:username/allowlist', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'operators.manage');
    const { username } = request.params as { username: string };
    return act(reply, page(username), async () => {
      const entries = String(form.ip_allowlist ?? '')
        .split(/[\s,]+/)
        .filter(Boolean);
      await operators.update(username, { ip_allowlist: entries }, user.actor);
      return entries.length ? 'ipAllowlistSaved' : 'ipAllowlistCleared';
    });
  });

  pages.post('/backoffice/operators/:username/two-factor/reset', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'operators.manage');
    const { username } = request.params as { username: string };
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
  });

  for (const kind of ['sessions', 'tokens'] as const) {
    pages.post(`/backoffice/operators/:username/${kind}/:id/revoke`, async (request, reply) => {
      const form = request.body as Form;
      checkCsrf(request, form._csrf);
      const user = requirePermission(request, 'operators.manage');
      const { username, id } = request.params as { username: string; id: string };
      return act(reply, page(username), async () => {
        if (kind === 'sessions') await operators.revokeSession(username, id, user.actor);
        else await operators.revokeTokens(username, user.actor, id);
        return kind === 'sessions' ? 'sessionEnded' : 'tokenRevoked';
      });
    });
  }
}

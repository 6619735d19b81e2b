import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import type { OperatorsService } from '../../modules/operators/index.js';
import { type FailureLimit, Field, throttledSignIn } from '../../platform/sessions/index.js';
import { type ConsoleSessions, ENROL_PATH } from './backoffice-session.js';
import { pageBasics } from './console-pages.js';

const LoginBody = Type.Object({
  _csrf: Field(200),
  username: Field(200),
  password: Field(1000),
  code: Field(100),
});
const LogoutBody = Type.Object({ _csrf: Field(200) });
const LoginQuery = Type.Object({ error: Type.Optional(Type.String()) });

/**
 * The console's sign-in and sign-out on the shared session stack (docs/architecture.md "Session
 * stack"): a double-submit token on the form, wrong passwords throttled per IP, a 12-hour session
 * cookie, and an operator who owes a second factor sent to enrol.
 */
export function signInPages(
  scope: App,
  deps: { sessions: ConsoleSessions; operators: OperatorsService; loginThrottle: FailureLimit },
) {
  const { sessions, operators } = deps;

  scope.get('/backoffice/login', { schema: { querystring: LoginQuery } }, async (request, reply) => {
    const csrf = sessions.issueLoginCsrf(request, reply);
    return reply.type('text/html; charset=utf-8').view('login.eta', {
      ...pageBasics(request, reply),
      csrf,
      error: request.query.error ?? null,
    });
  });

  scope.post('/backoffice/login', { schema: { body: LoginBody } }, async (request, reply) => {
    const form = request.body;
    await deps.loginThrottle.check(request);
    if (!sessions.checkLoginCsrf(request, form._csrf))
      return reply.redirect('/backoffice/login?error=expired', 303);
    const session = await throttledSignIn(
      deps.loginThrottle,
      request,
      () =>
        operators.login({
          username: form.username ?? '',
          password: form.password ?? '',
          code: form.code ?? '',
          ip: request.ip,
          userAgent: String(request.headers['user-agent'] ?? ''),
        }),
      (outcome) => !outcome.ok,
    );
    if (!session.ok) return reply.redirect('/backoffice/login?error=invalid', 303);
    sessions.open(request, reply, session.token, 12 * 3600);
    return reply.redirect(session.scope === 'enrol' ? ENROL_PATH : '/backoffice', 303);
  });

  scope.post('/backoffice/logout', { schema: { body: LogoutBody } }, async (request, reply) => {
    await sessions.signOut(request, reply, request.body._csrf, (token) => operators.logout(token));
    return reply.redirect('/backoffice/login', 303);
  });
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import type { HolderActor, HolderUsers } from '../../modules/holders/index.js';
import {
  type FailureLimit,
  Field,
  FormBody,
  IdParams,
  PathParam,
  registerFormScope,
  type SessionRouteConfig,
  throttledSignIn,
} from '../../platform/sessions/index.js';
import type { HolderPage } from './holder-page-service.js';
import { type HolderSessions, holderSessions, langOf, renderHolder } from './holder-session.js';
import { holderStatementPages } from './holder-statement-pages.js';
import { HOLDER_TEXTS } from './holder-texts.js';

const LoginBody = Type.Object({
  _csrf: Field(200),
  login: Field(64),
  password: Field(1000),
  code: Field(100),
});
const CodeParams = Type.Object({ code: PathParam });
/** The invitation's form: a password and a current TOTP code (a client never sends the secret). */
const InviteBody = Type.Object({ password: Field(1000), totp_code: Field(100) });

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CSS = readFileSync(here('./assets/holder.css'));
/** No script at all; our own styles; the TOTP QR as a data: URL; forms to ourselves only. */
const HOLDER_CSP =
  "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface HolderRoutesDeps {
  users: HolderUsers;
  page: HolderPage;
  uploads: UploadReader;
  /** Wrong sign-ins per IP (only failures count), like the console's and the portal's. */
  loginThrottle: FailureLimit;
}

/** The signed-in holder as the actor of a write. */
export function actorOf(sessions: HolderSessions, request: FastifyRequest): HolderActor {
  const user = sessions.userOf(request);
  return { holderId: user.holderId, login: user.login, ip: request.ip };
}

/** The scope's headers, and errors shown as a page in the holder's language with their code. */
function holderScope(scope: App, sessions: HolderSessions) {
  scope.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', HOLDER_CSP);
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
  scope.setErrorHandler(async (err, request, reply) => {
    const { error, kind } = resolveError(err);
    logFailure(request, err, kind);
    const t = HOLDER_TEXTS[langOf(request, reply)];
    const known = (t as Record<string, string>)[`error_${error.code}`];
    const text = error.code === 'NOT_FOUND' ? t.notFound : (known ?? t.errorOther);
    const detail = error.details?.map((d) => `${d.field}: ${d.problem}`).join('; ') ?? '';
    return renderHolder(
      request,
      reply.headers(errorHeaders(error)).status(error.status),
      sessions,
      'message.eta',
      {
        title: t.errorTitle,
        text,
        detail,
        code: error.code,
      },
    );
  });
  scope.get('/holder/assets/holder.css', async (_r, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(CSS),
  );
}

/** Sign-in (password + TOTP, throttled) and the invitation (password + mandatory TOTP enrolment). */
function signInRoutes(scope: App, sessions: HolderSessions, deps: HolderRoutesDeps) {
  const { users } = deps;
  scope.get('/holder/login', async (request, reply) =>
    renderHolder(request, reply, sessions, 'login.eta', {
      loginCsrf: sessions.issueLoginCsrf(request, reply),
      failed: (request.query as { error?: string }).error === 'login',
    }),
  );
  scope.post('/holder/login', { schema: { body: LoginBody } }, async (request, reply) => {
    const form = request.body;
    if (!sessions.checkLoginCsrf(request, form._csrf)) throw new AppError('FORBIDDEN');
    const session = await throttledSignIn(
      deps.loginThrottle,
      request,
      () =>
        users.login(
          { login: form.login ?? '', password: form.password ?? '', code: form.code ?? '' },
          request.ip,
        ),
      (outcome) => outcome === undefined,
    );
    if (!session) return reply.redirect('/holder/login?error=login', 303);
    sessions.open(request, reply, session.token, session.maxAgeSeconds);
    return reply.redirect('/holder', 303);
  });

  const invitePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    problem: string | null,
  ) =>
    renderHolder(request, reply, sessions, 'invite.eta', {
      ...(await users.invitePage(code)),
      code,
      problem,
    });
  scope.get('/holder/invite/:code', { schema: { params: CodeParams } }, async (request, reply) =>
    invitePage(request, reply, request.params.code, null),
  );
  scope.post(
    '/holder/invite/:code',
    { schema: { params: CodeParams, body: InviteBody } },
    async (request, reply) => {
      const { code } = request.params;
      try {
        // The secret is the one the server keeps on the invitation; the code proves it was enrolled.
        await users.accept(
          code,
          { password: request.body.password ?? '', totpCode: request.body.totp_code ?? '' },
          request.ip,
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        const field = err.details?.[0]?.field === 'password' ? 'password' : 'totp_code';
        return invitePage(request, reply.code(400), code, field);
      }
      return reply.redirect('/holder/login?msg=created', 303);
    },
  );
}

/** The signed-in pages: home, own requisites' pause and resume, the missed-payment report. */
function pageRoutes(pages: App, sessions: HolderSessions, deps: HolderRoutesDeps) {
  const { page, users, uploads } = deps;
  pages.post('/holder/logout', { schema: { body: FormBody({}) } }, async (request, reply) => {
    await sessions.signOut(request, reply, request.body._csrf, (token) => users.logout(token));
    return reply.redirect('/holder/login', 303);
  });
  pages.get('/holder', async (request, reply) =>
    renderHolder(request, reply, sessions, 'home.eta', await page.home(sessions.userOf(request).holderId)),
  );
  for (const action of ['pause', 'resume'] as const) {
    pages.post(
      `/holder/requisites/:id/${action}`,
      { schema: { params: IdParams, body: FormBody({}) } },
      async (request, reply) => {
        await page[action](actorOf(sessions, request), request.params.id);
        return reply.redirect(`/holder?msg=${action === 'pause' ? 'paused' : 'resumed'}#requisites`, 303);
      },
    );
  }
  pages.get('/holder/report', async (request, reply) =>
    renderHolder(
      request,
      reply,
      sessions,
      'report.eta',
      await page.reportForm(sessions.userOf(request).holderId),
    ),
  );
  pages.post(
    '/holder/report',
    // The CSRF field comes in the multipart parts: checked here, before anything is read from them.
    { config: { csrfInParts: true } satisfies SessionRouteConfig },
    async (request, reply) => {
      const upload = await uploads.read(request.parts(), 'receipt');
      try {
        sessions.checkCsrf(request, upload.fields._csrf);
        await page.report(actorOf(sessions, request), upload);
      } finally {
        await uploads.discard(upload);
      }
      return reply.redirect('/holder?msg=reported', 303);
    },
  );
  payoutRoutes(pages, sessions, deps);
}

/**
 * Payouts given to the holder to send from their card (docs/decisions.md "Payouts on the holder's
 * page"): the list, and the form that marks one sent with its receipt (multipart, CSRF in the parts).
 */
function payoutRoutes(pages: App, sessions: HolderSessions, deps: HolderRoutesDeps) {
  const { page, uploads } = deps;
  pages.get('/holder/payouts', async (request, reply) =>
    renderHolder(
      request,
      reply,
      sessions,
      'payouts.eta',
      await page.payouts(sessions.userOf(request).holderId),
    ),
  );
  pages.post(
    '/holder/payouts/:id/sent',
    { schema: { params: IdParams }, config: { csrfInParts: true } satisfies SessionRouteConfig },
    async (request, reply) => {
      const upload = await uploads.read(request.parts(), 'receipt');
      try {
        sessions.checkCsrf(request, upload.fields._csrf);
        await page.sendPayout(actorOf(sessions, request), request.params.id, upload);
      } finally {
        await uploads.discard(upload);
      }
      return reply.redirect('/holder/payouts?msg=payoutSent', 303);
    },
  );
}

/**
 * The requisite holder's own page at `/holder` (docs/decisions.md "The holder's own page"): made for
 * a phone, server-rendered without script, Russian and English. Sign-in on the shared session stack
 * (password + TOTP; the invitation enrols TOTP before any account exists), then the holder's phones,
 * requisites (pause/resume of their own), today's orders, money, statement with CSV, and the
 * missed-payment report into the operators' review queue.
 */
export function holderPageRoutes(app: App, deps: HolderRoutesDeps) {
  const sessions = holderSessions(deps.users);
  void app.register(async (scope: App) => {
    await registerFormScope(scope);
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
    holderScope(scope, sessions);
    signInRoutes(scope, sessions, deps);
    await scope.register(async (pages: App) => {
      // The session, then every urlencoded post's CSRF token, before any schema or handler.
      pages.addHook('preValidation', sessions.guard);
      pageRoutes(pages, sessions, deps);
      holderStatementPages(pages, sessions, deps.page);
    });
  });
}

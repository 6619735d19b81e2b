import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import view from '@fastify/view';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import { logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import {
  type FailureLimit,
  Field,
  FormBody,
  PathParam,
  registerFormScope,
  throttledSignIn,
} from '../../platform/sessions/index.js';
import { portalBrandingPages } from './portal-branding-pages.js';
import { portalExports } from './portal-exports.js';
import { portalKeysPages } from './portal-keys-pages.js';
import { portalPages } from './portal-pages.js';
import { portalReports, reportAssets } from './portal-reports.js';
import { portalSandboxPages } from './portal-sandbox-pages.js';
import type { PortalService } from './portal-service.js';
import { langOf, portalSessions, renderPortal } from './portal-session.js';
import { PORTAL_TEXTS } from './portal-texts.js';
import type { PortalUsers } from './portal-users.js';

const LoginBody = Type.Object({ email: Field(254), password: Field(1000), code: Field(100) });
const CodeParams = Type.Object({ code: PathParam });
/** The invitation's form: a password and, for TOTP, a current code (a `totp_secret` field is never read). */
const InviteBody = Type.Object({ password: Field(1000), totp_code: Field(100) });

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CSS = readFileSync(here('./assets/portal.css'));
/**
 * Our own scripts only (the reports chart; every page works without them), our own styles, QR
 * images as data: URLs, fetches to ourselves.
 */
const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The merchant portal at `/portal` (docs/decisions.md section 28): server-rendered pages without script,
 * sign-in with password and TOTP, invitations, then the merchant's own orders, statement, appeals,
 * keys and exports. Errors go through the one mapping and show as a page.
 */
export function portalRoutes(
  app: App,
  deps: {
    users: PortalUsers;
    portal: PortalService;
    /** Wrong-password throttle per IP (only failures count). */
    loginThrottle: FailureLimit;
  },
) {
  const { users } = deps;
  const sessions = portalSessions(users);
  void app.register(async (scope: App) => {
    await registerFormScope(scope);
    await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', PORTAL_CSP);
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });
    scope.setErrorHandler(async (err, request, reply) => {
      const { error, kind } = resolveError(err);
      logFailure(request, err, kind);
      const t = PORTAL_TEXTS[langOf(request, reply)];
      const text =
        error.code === 'FORBIDDEN' ? t.forbidden : error.code === 'NOT_FOUND' ? t.notFound : t.error;
      const detail = error.details?.map((d) => `${d.field}: ${d.problem}`).join('; ') ?? '';
      return renderPortal(request, reply.headers(errorHeaders(error)).status(error.status), 'message.eta', {
        title: text,
        text: detail,
        code: error.code,
      });
    });
    scope.get('/portal/assets/portal.css', async (_r, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(CSS),
    );

    reportAssets(scope);

    scope.get('/portal/login', async (request, reply) => renderPortal(request, reply, 'login.eta', {}));
    scope.post('/portal/login', { schema: { body: LoginBody } }, async (request, reply) => {
      const form = request.body;
      const session = await throttledSignIn(
        deps.loginThrottle,
        request,
        () =>
          users.login(
            { email: form.email ?? '', password: form.password ?? '', code: form.code ?? '' },
            request.ip,
          ),
        (outcome) => outcome === undefined,
      );
      if (!session) return reply.redirect('/portal/login?error=login', 303);
      sessions.open(request, reply, session.token, session.maxAgeSeconds);
      return reply.redirect('/portal/orders', 303);
    });

    scope.get('/portal/invite/:code', { schema: { params: CodeParams } }, async (request, reply) => {
      const { code } = request.params;
      const invite = await users.inviteInfo(code);
      const totp = await users.inviteTotp(code);
      return renderPortal(request, reply, 'invite.eta', { invite, totp, code, codeError: false });
    });
    scope.post(
      '/portal/invite/:code',
      { schema: { params: CodeParams, body: InviteBody } },
      async (request, reply) => {
        const { code } = request.params;
        const form = request.body;
        // The secret is the one the server keeps for this invitation: a `totp_secret` field is never read.
        try {
          await users.accept(
            code,
            {
              password: form.password ?? '',
              ...(form.totp_code?.trim() ? { totpCode: form.totp_code.trim() } : {}),
            },
            request.ip,
          );
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
          // The same form with the same secret, and what was wrong in the page's language.
          const field = err.details?.[0]?.field === 'password' ? 'password' : 'totp_code';
          const [invite, totp] = [await users.inviteInfo(code), await users.inviteTotp(code)];
          reply.code(400);
          return renderPortal(request, reply, 'invite.eta', { invite, totp, code, codeError: field });
        }
        return reply.redirect('/portal/login?msg=created', 303);
      },
    );

    // Everything below needs a session.
    await scope.register(async (pages: App) => {
      // The session, then every post's CSRF token, before a route's role check, schema or handler.
      pages.addHook('preValidation', sessions.guard);
      pages.post('/portal/logout', { schema: { body: FormBody({}) } }, async (request, reply) => {
        await sessions.signOut(request, reply, request.body._csrf, async (token) => {
          await users.logout(token);
        });
        return reply.redirect('/portal/login', 303);
      });
      portalPages(pages, { portal: deps.portal, users });
      portalSandboxPages(pages, { portal: deps.portal });
      portalKeysPages(pages, { portal: deps.portal });
      portalBrandingPages(pages, { portal: deps.portal });
      portalReports(pages, { portal: deps.portal });
      portalExports(pages, { portal: deps.portal });
    });
  });
}

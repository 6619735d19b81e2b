import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Eta } from 'eta';
import { logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import type { Clock } from '../../lib/clock.js';
import { type FailureLimit, registerFormScope } from '../../platform/sessions/index.js';
import { accountPages } from './backoffice-account-pages.js';
import { adminPages } from './backoffice-admin-pages.js';
import { appealPages } from './backoffice-appeal-pages.js';
import { chainPages } from './backoffice-chain-pages.js';
import { dashboardPages, failingWebhookPages } from './backoffice-dashboard-pages.js';
import { devicePages } from './backoffice-device-pages.js';
import { holderPages } from './backoffice-holder-pages.js';
import { operatorPages } from './backoffice-operator-pages.js';
import { orderListPages } from './backoffice-order-list.js';
import { orderPages, payoutPages } from './backoffice-order-pages.js';
import { receiptPages } from './backoffice-receipt-pages.js';
import { rulePages } from './backoffice-rule-pages.js';
import { consoleSessions, userOf } from './backoffice-session.js';
import { signInPages } from './backoffice-sign-in.js';
import { consoleErrorText } from './console-messages.js';
import { pageBasics } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';
import { createDashboard } from './dashboard.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CSS = readFileSync(here('./assets/backoffice.css'));

/**
 * The console's Content-Security-Policy: our own scripts only (the dashboard's live figures; every
 * page works without them), our own styles, frames of our own only.
 */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; object-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The console's scope: form bodies, uploads and views; the strict headers on every answer; errors
 * through the one mapping (resolveError), shown as a console page with the code's status.
 */
async function consoleScope(scope: App) {
  await registerFormScope(scope);
  await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
  await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
  scope.addHook('onSend', async (_request, reply) => {
    // A route with a policy of its own (the receipt file viewer) keeps it.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONSOLE_CSP);
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
  });
  // The one error mapping (resolveError), shown as a console page with the code's status.
  scope.setErrorHandler(async (err, request, reply) => {
    const { error, kind } = resolveError(err);
    logFailure(request, err, kind);
    const user = request.consoleUser;
    const basics = pageBasics(request, reply);
    return reply
      .headers(errorHeaders(error))
      .status(error.status)
      .type('text/html; charset=utf-8')
      .view('message.eta', {
        ...basics,
        ...consoleErrorText(error, basics.t),
        user: user
          ? { username: user.operator.username, role: user.operator.role, can: user.can }
          : undefined,
        csrf: user?.csrf ?? '',
        msg: null,
        error: null,
      });
  });
}

/**
 * The operators' console at `/backoffice` (docs/api.md "Operator console"): server-rendered pages over the same services
 * as the admin API, session cookie + CSRF token on every form, roles per page and action, every
 * action audited with the operator's name and IP.
 */
export function backofficeRoutes(
  app: App,
  deps: {
    services: ConsoleServices;
    clock: Clock;
    /** Reads and drops multipart uploads (a payout's proof). */
    uploads: UploadReader;
    /** Wrong-password throttle per IP (only failures count). */
    loginThrottle: FailureLimit;
  },
) {
  const { services } = deps;
  const { webhooks, operators } = services;
  const sessions = consoleSessions(operators);

  void app.register(async (scope: App) => {
    await consoleScope(scope);
    scope.get('/backoffice/assets/backoffice.css', async (_r, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(CSS),
    );

    signInPages(scope, { sessions, operators, loginThrottle: deps.loginThrottle });

    // Everything else needs a session.
    scope.register(async (pages: App) => {
      // The session, then every post's CSRF token, before a route's permission, schema or handler.
      pages.addHook('preValidation', sessions.guard);

      pages.get('/backoffice', async (request, reply) => {
        const user = userOf(request);
        return reply.redirect(user.can('orders.read') ? '/backoffice/dashboard' : '/backoffice/payouts', 303);
      });

      // --- orders ---------------------------------------------------------------------------------
      orderListPages(pages, services);

      orderPages(pages, services);
      receiptPages(pages, services);

      payoutPages(pages, services, deps.uploads);

      adminPages(pages, services);
      accountPages(pages, services);
      dashboardPages(pages, {
        dashboard: createDashboard(services, deps.clock),
        sessionAlive: async (token, ip) => (await services.operators.session(token, ip))?.scope === 'full',
      });
      failingWebhookPages(pages, { webhooks });
      operatorPages(pages, services);
      devicePages(pages, services);
      rulePages(pages, services);
      holderPages(pages, services, deps.uploads);
      appealPages(pages, services);
      chainPages(pages, services);
    });
  });
}

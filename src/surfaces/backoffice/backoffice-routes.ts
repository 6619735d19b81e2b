import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyRequest } from 'fastify';
import { logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { lastValues, parseFormBody } from '../../lib/form-fields.js';
import { accountPages } from './backoffice-account-pages.js';
import { adminPages } from './backoffice-admin-pages.js';
import { appealPages } from './backoffice-appeal-pages.js';
import { chainPages } from './backoffice-chain-pages.js';
import { dashboardPages, failingWebhookPages } from './backoffice-dashboard-pages.js';
import { devicePages } from './backoffice-device-pages.js';
import { holderPages } from './backoffice-holder-pages.js';
import { operatorPages } from './backoffice-operator-pages.js';
import { orderListPages } from './backoffice-order-list.js';
import { receiptPages } from './backoffice-receipt-pages.js';
import {
  checkCsrf,
  checkLoginCsrf,
  cookieOptions,
  ENROL_PATH,
  issueLoginCsrf,
  LOGIN_CSRF_COOKIE,
  loadSession,
  requirePermission,
  SESSION_COOKIE,
  userOf,
} from './backoffice-session.js';
import { confirmFirst, safeBack } from './console-confirm.js';
import { act, consoleErrorText } from './console-messages.js';
import { accountText, type Form, pageBasics, render, str } from './console-pages.js';
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
    loginThrottle: {
      check(request: FastifyRequest): Promise<void>;
      fail(request: FastifyRequest): Promise<void>;
    };
  },
) {
  const { services } = deps;
  const { orders, receipts, payouts, webhooks, operators } = services;

  void app.register(async (scope: App) => {
    await scope.register(cookie);
    // One string per field and query name (src/lib/form-fields.ts): a repeated name is never a list.
    await scope.register(formbody, { parser: parseFormBody });
    scope.addHook('onRequest', async (request) => {
      request.query = lastValues(request.query);
    });
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

    scope.get('/backoffice/assets/backoffice.css', async (_r, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(CSS),
    );

    // --- login / logout -------------------------------------------------------------------------
    scope.get('/backoffice/login', async (request, reply) => {
      const csrf = issueLoginCsrf(request, reply);
      return reply.type('text/html; charset=utf-8').view('login.eta', {
        ...pageBasics(request, reply),
        csrf,
        error: (request.query as { error?: string }).error ?? null,
      });
    });
    scope.post('/backoffice/login', async (request, reply) => {
      await deps.loginThrottle.check(request);
      const form = request.body as Form;
      if (!checkLoginCsrf(request, form._csrf)) return reply.redirect('/backoffice/login?error=expired', 303);
      const session = await operators.login({
        username: String(form.username ?? ''),
        password: String(form.password ?? ''),
        code: String(form.code ?? ''),
        ip: request.ip,
        userAgent: String(request.headers['user-agent'] ?? ''),
      });
      if (!session.ok) {
        await deps.loginThrottle.fail(request);
        return reply.redirect('/backoffice/login?error=invalid', 303);
      }
      void reply.clearCookie(LOGIN_CSRF_COOKIE, cookieOptions(request));
      void reply.setCookie(SESSION_COOKIE, session.token, cookieOptions(request, 12 * 3600));
      return reply.redirect(session.scope === 'enrol' ? ENROL_PATH : '/backoffice', 303);
    });
    scope.post('/backoffice/logout', async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token && (await loadSession(request, reply, operators))) {
        checkCsrf(request, (request.body as Form)._csrf);
        await operators.logout(token);
      }
      void reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect('/backoffice/login', 303);
    });

    // Everything else needs a session.
    scope.register(async (pages: App) => {
      pages.addHook('preHandler', async (request, reply) => {
        if (!(await loadSession(request, reply, operators))) return reply;
      });

      pages.get('/backoffice', async (request, reply) => {
        const user = userOf(request);
        return reply.redirect(user.can('orders.read') ? '/backoffice/dashboard' : '/backoffice/payouts', 303);
      });

      // --- orders ---------------------------------------------------------------------------------
      orderListPages(pages, services);

      pages.get('/backoffice/orders/:id', async (request, reply) => {
        requirePermission(request, 'orders.read');
        const { id } = request.params as { id: string };
        const order = await orders.getAdminOrder(id);
        const [orderReceipts, deliveries] = await Promise.all([
          receipts.forOrder(id),
          webhooks.list({ orderId: id }),
        ]);
        return render(request, reply, 'order.eta', { order, receipts: orderReceipts, deliveries });
      });

      pages.post('/backoffice/orders/:id/confirm', async (request, reply) => {
        const { id } = request.params as { id: string };
        const form = request.body as Form;
        checkCsrf(request, form._csrf);
        const user = userOf(request);
        const order = await orders.getAdminOrder(id);
        const asked = confirmFirst(request, reply, form, {
          kind:
            order.direction === 'PAYOUT'
              ? 'confirmPayout'
              : order.status === 'error'
                ? 'confirmLate'
                : 'confirmPayin',
          values: {
            order: order.payment_id,
            amount: String(order.amount),
            currency: order.currency,
            type: order.type,
          },
          back: `/backoffice/orders/${id}`,
          permission: order.direction === 'PAYOUT' ? 'payouts.manage' : 'orders.manage',
        });
        if (asked) return asked;
        return act(reply, `/backoffice/orders/${id}`, async () => {
          await orders.confirm(
            id,
            {
              reason: str(form.reason),
              tx_hash: str(form.tx_hash),
              position: str(form.position),
              received_amount: str(form.received_amount),
            },
            user.actor,
          );
          return 'orderConfirmed';
        });
      });

      pages.post('/backoffice/orders/:id/cancel', async (request, reply) => {
        const { id } = request.params as { id: string };
        const form = request.body as Form;
        checkCsrf(request, form._csrf);
        const order = await orders.getAdminOrder(id);
        const asked = confirmFirst(request, reply, form, {
          kind: 'cancelOrder',
          values: { id, reason: String(form.reason ?? '') },
          back: `/backoffice/orders/${id}`,
          permission: order.direction === 'PAYOUT' ? 'payouts.manage' : 'orders.manage',
        });
        if (asked) return asked;
        return act(reply, `/backoffice/orders/${id}`, async () => {
          const reason = str(form.reason);
          if (!reason) throw new AppError('VALIDATION_ERROR', [{ field: 'reason', problem: 'is required' }]);
          await orders.cancel(id, reason, userOf(request).actor);
          return 'orderCancelled';
        });
      });

      pages.post('/backoffice/webhooks/:id/resend', async (request, reply) => {
        const { id } = request.params as { id: string };
        const form = request.body as Form;
        checkCsrf(request, form._csrf);
        requirePermission(request, 'orders.manage');
        return act(
          reply,
          safeBack(`/backoffice/orders/${str(form.order_id) ?? ''}`, '/backoffice/orders'),
          async () => {
            await webhooks.resend(id, userOf(request).actor);
            return 'webhookQueued';
          },
        );
      });

      receiptPages(pages, services);

      // --- payouts --------------------------------------------------------------------------------
      pages.get('/backoffice/payouts', async (request, reply) => {
        requirePermission(request, 'payouts.read');
        const status = ((request.query as Form).status ?? 'pending') as 'pending' | 'success' | 'error';
        return render(request, reply, 'payouts.eta', {
          list: await payouts.list(status, 200),
          status,
          accountText,
        });
      });
      pages.post('/backoffice/payouts/:id/take', async (request, reply) => {
        const { id } = request.params as { id: string };
        checkCsrf(request, (request.body as Form)._csrf);
        const user = requirePermission(request, 'payouts.manage');
        return act(reply, '/backoffice/payouts', async () => {
          await payouts.take(id, user.actor);
          return 'payoutTaken';
        });
      });
      pages.post('/backoffice/payouts/:id/sent', async (request, reply) => {
        const { id } = request.params as { id: string };
        const upload = await deps.uploads.read(request.parts(), 'proof');
        try {
          checkCsrf(request, upload.fields._csrf);
          const user = requirePermission(request, 'payouts.manage');
          return await act(reply, '/backoffice/payouts', async () => {
            await orders.confirm(id, { reason: str(upload.fields.reason) }, user.actor, upload);
            return 'payoutSent';
          });
        } finally {
          await deps.uploads.discard(upload);
        }
      });
      pages.post('/backoffice/payouts/:id/failed', async (request, reply) => {
        const { id } = request.params as { id: string };
        const form = request.body as Form;
        checkCsrf(request, form._csrf);
        const user = requirePermission(request, 'payouts.manage');
        return act(reply, '/backoffice/payouts', async () => {
          const reason = str(form.reason);
          if (!reason) throw new AppError('VALIDATION_ERROR', [{ field: 'reason', problem: 'is required' }]);
          await orders.cancel(id, reason, user.actor);
          return 'payoutFailed';
        });
      });

      adminPages(pages, services);
      accountPages(pages, services);
      dashboardPages(pages, {
        dashboard: createDashboard(services, deps.clock),
        sessionAlive: async (token, ip) => (await services.operators.session(token, ip))?.scope === 'full',
      });
      failingWebhookPages(pages, { webhooks });
      operatorPages(pages, services);
      devicePages(pages, services);
      holderPages(pages, services);
      appealPages(pages, services);
      chainPages(pages, services);
    });
  });
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { type TSchema, Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import { logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import {
  type FailureLimit,
  Field,
  FormBody,
  IdParams,
  registerFormScope,
  type SessionRouteConfig,
} from '../../platform/sessions/index.js';
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
import { rulePages } from './backoffice-rule-pages.js';
import { checkCsrf, consoleSessions, needs, needsAny, userOf } from './backoffice-session.js';
import { signInPages } from './backoffice-sign-in.js';
import { confirmFirst, safeBack } from './console-confirm.js';
import { act, consoleErrorText } from './console-messages.js';
import { accountText, pageBasics, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';
import { createDashboard } from './dashboard.js';

/** An order's confirmation: the fields an operator may give (docs/api.md "Operator console"). */
const ConfirmBody = FormBody({
  reason: Field(),
  tx_hash: Field(200),
  position: Field(20),
  received_amount: Field(40),
  confirmed: Field(10),
});
const ReasonBody = FormBody({ reason: Field(), confirmed: Field(10) });
const ResendBody = FormBody({ order_id: Field(200) });
const PayoutsQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('error')]),
  ),
});

/**
 * An action on an order: a role that may manage neither orders nor payouts is refused first; which
 * of the two the order needs is checked once it is read (its direction).
 */
const orderAction = <B extends TSchema>(body: B) => ({
  preValidation: needsAny(['orders.manage', 'payouts.manage']),
  schema: { params: IdParams, body },
});
/** An action on a payout: `payouts.manage` first. */
const payoutAction = <B extends TSchema>(body: B) => ({
  preValidation: needs('payouts.manage'),
  schema: { params: IdParams, body },
});

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
    loginThrottle: FailureLimit;
  },
) {
  const { services } = deps;
  const { orders, receipts, payouts, webhooks, operators } = services;
  const sessions = consoleSessions(operators);

  void app.register(async (scope: App) => {
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

      pages.get(
        '/backoffice/orders/:id',
        { preValidation: needs('orders.read'), schema: { params: IdParams } },
        async (request, reply) => {
          const { id } = request.params;
          const order = await orders.getAdminOrder(id);
          const [orderReceipts, deliveries] = await Promise.all([
            receipts.forOrder(id),
            webhooks.list({ orderId: id }),
          ]);
          return render(request, reply, 'order.eta', { order, receipts: orderReceipts, deliveries });
        },
      );

      pages.post('/backoffice/orders/:id/confirm', orderAction(ConfirmBody), async (request, reply) => {
        const { id } = request.params;
        const form = request.body;
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

      pages.post('/backoffice/orders/:id/cancel', orderAction(ReasonBody), async (request, reply) => {
        const { id } = request.params;
        const form = request.body;
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

      pages.post(
        '/backoffice/webhooks/:id/resend',
        { preValidation: needs('orders.manage'), schema: { params: IdParams, body: ResendBody } },
        async (request, reply) => {
          const { id } = request.params;
          const form = request.body;
          return act(
            reply,
            safeBack(`/backoffice/orders/${str(form.order_id) ?? ''}`, '/backoffice/orders'),
            async () => {
              await webhooks.resend(id, userOf(request).actor);
              return 'webhookQueued';
            },
          );
        },
      );

      receiptPages(pages, services);

      // --- payouts --------------------------------------------------------------------------------
      pages.get(
        '/backoffice/payouts',
        { preValidation: needs('payouts.read'), schema: { querystring: PayoutsQuery } },
        async (request, reply) => {
          const status = request.query.status ?? 'pending';
          return render(request, reply, 'payouts.eta', {
            list: await payouts.list(status, 200),
            status,
            accountText,
          });
        },
      );
      pages.post('/backoffice/payouts/:id/take', payoutAction(FormBody({})), async (request, reply) => {
        const { id } = request.params;
        const user = userOf(request);
        return act(reply, '/backoffice/payouts', async () => {
          await payouts.take(id, user.actor);
          return 'payoutTaken';
        });
      });
      pages.post(
        '/backoffice/payouts/:id/sent',
        {
          preValidation: needs('payouts.manage'),
          schema: { params: IdParams },
          // The CSRF field comes in the multipart parts: checked here, after the permission.
          config: { csrfInParts: true } satisfies SessionRouteConfig,
        },
        async (request, reply) => {
          const { id } = request.params;
          const upload = await deps.uploads.read(request.parts(), 'proof');
          try {
            checkCsrf(request, upload.fields._csrf);
            const user = userOf(request);
            return await act(reply, '/backoffice/payouts', async () => {
              await orders.confirm(id, { reason: str(upload.fields.reason) }, user.actor, upload);
              return 'payoutSent';
            });
          } finally {
            await deps.uploads.discard(upload);
          }
        },
      );
      pages.post('/backoffice/payouts/:id/failed', payoutAction(ReasonBody), async (request, reply) => {
        const { id } = request.params;
        const form = request.body;
        const user = userOf(request);
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
      rulePages(pages, services);
      holderPages(pages, services);
      appealPages(pages, services);
      chainPages(pages, services);
    });
  });
}

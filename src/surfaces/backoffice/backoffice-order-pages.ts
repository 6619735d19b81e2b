import { type TSchema, Type } from '@sinclair/typebox';
import type { UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams, type SessionRouteConfig } from '../../platform/sessions/index.js';
import { checkCsrf, needs, needsAny, userOf } from './backoffice-session.js';
import { confirmFirst, safeBack } from './console-confirm.js';
import { act } from './console-messages.js';
import { accountText, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

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

/**
 * An order's page and an operator's actions on it (docs/api.md "Operator console"): confirm and
 * cancel, each asked first on its confirmation page; a webhook delivery sent again.
 */
export function orderPages(pages: App, services: Pick<ConsoleServices, 'orders' | 'receipts' | 'webhooks'>) {
  const { orders, receipts, webhooks } = services;
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
}

/**
 * The payouts queue and its actions (docs/decisions.md section 10): take one, mark it sent with a
 * proof of transfer (multipart, its CSRF field read from the parts after the permission), or failed.
 */
export function payoutPages(
  pages: App,
  services: Pick<ConsoleServices, 'orders' | 'payouts'>,
  uploads: UploadReader,
) {
  const { orders, payouts } = services;
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
      const upload = await uploads.read(request.parts(), 'proof');
      try {
        checkCsrf(request, upload.fields._csrf);
        const user = userOf(request);
        return await act(reply, '/backoffice/payouts', async () => {
          await orders.confirm(id, { reason: str(upload.fields.reason) }, user.actor, upload);
          return 'payoutSent';
        });
      } finally {
        await uploads.discard(upload);
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
}

import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import { needs, userOf } from './backoffice-session.js';
import { safeBack } from './console-confirm.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

/**
 * The receipts queue (docs/decisions.md section 32): each file beside the order's expected amount,
 * requisite, client and timeline and any bank message of that amount waiting in review; accept, or
 * reject with a reason (keyboard: J/K move, A accepts, R types the reason).
 */
export function receiptPages(pages: App, services: ConsoleServices) {
  const { receipts, orders, deviceReview } = services;

  pages.get('/backoffice/receipts', { preValidation: needs('orders.read') }, async (request, reply) => {
    const status = (request.query as Form).status ?? 'under_review';
    const list = await receipts.list(status as 'under_review' | 'accepted' | 'rejected', 200);
    // Beside each file: what the payer should have paid, where, and any bank message of that amount.
    const review = status === 'under_review' ? await deviceReview.list({ status: 'review', limit: 500 }) : [];
    const withContext = await Promise.all(
      list.map(async (r) => {
        const order = r.order_id ? await orders.getAdminOrder(r.order_id).catch(() => null) : null;
        const amount = order?.payment_details.amount;
        const messages = order
          ? review.filter(
              (e) =>
                e.amount === amount && (e.requisite_id === null || e.requisite_id === order.requisite_id),
            )
          : [];
        return { ...r, order, messages };
      }),
    );
    return render(request, reply, 'receipts.eta', {
      list: withContext,
      status,
      script: '/backoffice/assets/queue-keys.js',
    });
  });
  pages.get(
    '/backoffice/receipts/:id/file',
    { preValidation: needs('orders.read'), schema: { params: IdParams } },
    async (request, reply) => {
      const file = await receipts.file(request.params.id);
      return (
        reply
          .header('content-type', file.contentType)
          .header('content-disposition', `inline; filename="${file.filename}"`)
          .header('x-content-type-options', 'nosniff')
          // Shown inside the console's own order page (frame-ancestors 'self'); sandboxed, no script.
          .header(
            'content-security-policy',
            "default-src 'none'; img-src 'self'; object-src 'self'; sandbox; frame-ancestors 'self'",
          )
          .send(file.stream)
      );
    },
  );
  for (const decision of ['accept', 'reject'] as const) {
    pages.post(
      `/backoffice/receipts/:id/${decision}`,
      {
        preValidation: needs('receipts.moderate'),
        schema: { params: IdParams, body: FormBody({ back: Field(), reason: Field() }) },
      },
      async (request, reply) => {
        const { id } = request.params;
        const form = request.body;
        const user = userOf(request);
        return act(reply, safeBack(str(form.back), '/backoffice/receipts'), async () => {
          const reason = str(form.reason) ?? null;
          if (decision === 'reject' && !reason)
            throw new AppError('VALIDATION_ERROR', [{ field: 'reason', problem: 'is required' }]);
          await receipts.review(id, decision === 'accept' ? 'accepted' : 'rejected', reason, user.actor);
          return decision === 'accept' ? 'receiptAccepted' : 'receiptRejected';
        });
      },
    );
  }
}

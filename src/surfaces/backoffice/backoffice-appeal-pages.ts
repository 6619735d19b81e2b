import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import type { OrdersService } from '../../modules/orders/index.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import type { AppealsService } from '../../rails/appeals/index.js';
import { needs, userOf } from './backoffice-session.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';

const STATUSES = ['open', 'accepted', 'rejected'] as const;

/**
 * The appeals queue of the console (docs/decisions.md section 27): open late-payment claims by deadline,
 * each with its order's expected amount, requisite and client beside the receipt; accept (the
 * order succeeds as a late payment) or reject with a reason. The same service as the admin API.
 */
export function appealPages(pages: App, services: { appeals: AppealsService; orders: OrdersService }) {
  pages.get('/backoffice/appeals', { preValidation: needs('orders.read') }, async (request, reply) => {
    const q = request.query as Form;
    const status = STATUSES.find((s) => s === q.status) ?? 'open';
    const list = await services.appeals.list({ status }, 200);
    const orders = await Promise.all(
      list.map((a) => services.orders.getAdminOrder(a.order_id).catch(() => null)),
    );
    const rows = list.map((appeal, i) => ({ appeal, order: orders[i] ?? null }));
    return render(request, reply, 'appeals.eta', { rows, status, statuses: STATUSES });
  });
  for (const decision of ['accept', 'reject'] as const) {
    pages.post(
      `/backoffice/appeals/:id/${decision}`,
      {
        preValidation: needs('orders.manage'),
        schema: { params: IdParams, body: FormBody({ reason: Field() }) },
      },
      async (request, reply) => {
        const { id } = request.params;
        const form = request.body;
        const user = userOf(request);
        return act(reply, '/backoffice/appeals', async () => {
          const reason = str(form.reason) ?? null;
          if (decision === 'reject') {
            if (!reason)
              throw new AppError('VALIDATION_ERROR', [{ field: 'reason', problem: 'is required' }]);
            await services.appeals.reject(id, reason, user.actor);
            return 'appealRejected';
          }
          await services.appeals.accept(id, reason, user.actor);
          return 'appealAccepted';
        });
      },
    );
  }
}

import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import type { DeviceAdmin, DeviceIngest, DeviceReview } from '../../rails/devices/index.js';
import { needs, userOf } from './backoffice-session.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';

const STATUSES = [
  'review',
  'block',
  'alert',
  'confirmed',
  'paired',
  'assigned',
  'dismissed',
  'ignored',
] as const;

/**
 * Console pages for requisite holders' phones (docs/decisions.md section 24): devices with state, health and warnings,
 * and the review queue of their messages with assign and dismiss (the same services as the admin API).
 */
export function devicePages(
  pages: App,
  services: { deviceAdmin: DeviceAdmin; deviceReview: DeviceReview; deviceIngest: DeviceIngest },
) {
  pages.get('/backoffice/devices', { preValidation: needs('pool.read') }, async (request, reply) => {
    return render(request, reply, 'devices.eta', { list: await services.deviceAdmin.list() });
  });
  pages.get('/backoffice/device-events', { preValidation: needs('orders.read') }, async (request, reply) => {
    const q = request.query as Form;
    const status = STATUSES.find((s) => s === q.status) ?? 'review';
    const rows = await services.deviceReview.list({ status, limit: 300 });
    // Just assigned: offer to teach the reader that text (docs/decisions.md "Rules learned from the review queue").
    const taught = q.msg === 'assigned' ? str(q.msg_event) : undefined;
    return render(request, reply, 'device-events.eta', { rows, status, statuses: STATUSES, taught });
  });
  pages.post(
    '/backoffice/device-events/:id/assign',
    {
      preValidation: needs('orders.manage'),
      schema: { params: IdParams, body: FormBody({ order_id: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { id } = request.params;
      return act(reply, '/backoffice/device-events', async () => {
        const orderId = str(form.order_id);
        if (!orderId) throw new AppError('VALIDATION_ERROR', [{ field: 'order_id', problem: 'is required' }]);
        const done = await services.deviceReview.assign(id, orderId, user.actor);
        // A text the reader did not read: the queue offers to make it a rule (`event`).
        return {
          key: 'assigned',
          values: { order: orderId, ...(done.parse === 'parsed' ? {} : { event: id }) },
        };
      });
    },
  );
  pages.post(
    '/backoffice/device-events/:id/dismiss',
    {
      preValidation: needs('orders.manage'),
      schema: { params: IdParams, body: FormBody({ reason: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { id } = request.params;
      return act(reply, '/backoffice/device-events', async () => {
        const reason = str(form.reason);
        if (!reason) throw new AppError('VALIDATION_ERROR', [{ field: 'reason', problem: 'is required' }]);
        await services.deviceReview.dismiss(id, reason, user.actor);
        return 'dismissed';
      });
    },
  );
  pages.post(
    '/backoffice/device-events/:id/sender',
    { preValidation: needs('pool.manage'), schema: { params: IdParams, body: FormBody({ bank: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { id } = request.params;
      return act(reply, '/backoffice/device-events', async () => {
        const bank = str(form.bank);
        if (!bank) throw new AppError('VALIDATION_ERROR', [{ field: 'bank', problem: 'is required' }]);
        const done = await services.deviceIngest.senderIs(id, bank, user.actor);
        const outcome = done.outcome
          ? [done.outcome.status, done.outcome.reason].filter(Boolean).join(' ')
          : '—';
        return { key: 'senderMarked', values: { source: done.source, bank, outcome } };
      });
    },
  );
}

import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams, PathParam } from '../../platform/sessions/index.js';
import type { RuleReview } from '../../rails/devices/index.js';
import { needs, userOf } from './backoffice-session.js';
import { act, type Flash } from './console-messages.js';
import { render, str } from './console-pages.js';
import type { RuleFlashKey } from './console-texts-rules-en.js';

/** A message of the rules' catalogue after an action (its `flash_<key>` is in CONSOLE_TEXTS). */
const flash = (key: RuleFlashKey, values: Record<string, string> = {}) =>
  ({ key, values }) as unknown as Flash;

/**
 * Console pages of the bank-message rules learned from the review queue (docs/decisions.md "Rules
 * learned from the review queue"), over the same service as the admin API: a rule proposed from an
 * assigned message (orders.manage, what assigning needs), the list, switching on and off
 * (pool.manage: admins), and the queue's messages a rule switched on reads, each with one-click
 * buttons for its candidate orders.
 */
export function rulePages(pages: App, services: { ruleReview: RuleReview }) {
  const rules = services.ruleReview;
  const csrfOnly = FormBody({});
  pages.get('/backoffice/bank-rules', { preValidation: needs('orders.read') }, async (request, reply) =>
    render(request, reply, 'bank-rules.eta', { rules: await rules.list() }),
  );
  pages.post(
    '/backoffice/device-events/:id/rule',
    { preValidation: needs('orders.manage'), schema: { params: IdParams, body: csrfOnly } },
    async (request, reply) => {
      const user = userOf(request);
      return act(reply, '/backoffice/bank-rules', async () => {
        await rules.propose(request.params.id, user.actor);
        return flash('ruleProposed');
      });
    },
  );
  pages.post(
    '/backoffice/bank-rules/:id/enable',
    { preValidation: needs('pool.manage'), schema: { params: IdParams, body: csrfOnly } },
    async (request, reply) => {
      const { id } = request.params;
      // Switched on, the rule's page lists the queue's messages it reads (one-click assignment).
      const done = await rules.enable(id, userOf(request).actor).catch((err: unknown) => err);
      if (done instanceof AppError) return act(reply, '/backoffice/bank-rules', () => Promise.reject(done));
      if (done instanceof Error) throw done;
      return reply.redirect(`/backoffice/bank-rules/${encodeURIComponent(id)}?msg=ruleEnabled`, 303);
    },
  );
  pages.post(
    '/backoffice/bank-rules/:id/disable',
    { preValidation: needs('pool.manage'), schema: { params: IdParams, body: csrfOnly } },
    async (request, reply) => {
      const user = userOf(request);
      return act(reply, '/backoffice/bank-rules', async () => {
        await rules.disable(request.params.id, user.actor);
        return flash('ruleDisabled');
      });
    },
  );
  pages.get(
    '/backoffice/bank-rules/:id',
    { preValidation: needs('orders.read'), schema: { params: IdParams } },
    async (request, reply) => {
      const { id } = request.params;
      const rule = await rules.rule(id);
      return render(request, reply, 'bank-rule.eta', { rule, matches: await rules.matches(id) });
    },
  );
  pages.post(
    '/backoffice/bank-rules/:id/events/:eventId/assign',
    {
      preValidation: needs('orders.manage'),
      schema: {
        params: Type.Object({ id: PathParam, eventId: PathParam }),
        body: FormBody({ order_id: Field() }),
      },
    },
    async (request, reply) => {
      const user = userOf(request);
      const { id, eventId } = request.params;
      return act(reply, `/backoffice/bank-rules/${encodeURIComponent(id)}`, async () => {
        const orderId = str(request.body.order_id);
        if (!orderId) throw new AppError('VALIDATION_ERROR', [{ field: 'order_id', problem: 'is required' }]);
        await rules.assignByRule(id, eventId, orderId, user.actor);
        return flash('ruleAssigned', { order: orderId });
      });
    },
  );
}

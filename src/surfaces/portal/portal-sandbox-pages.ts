import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import { isSandboxOutcome } from '../../rails/sandbox/index.js';
import { EVENT_TYPES } from '../../rails/webhooks/index.js';
import type { PortalService } from './portal-service.js';
import { allowRoles, type Form, portalUserOf, renderPortal } from './portal-session.js';

/**
 * The portal's sandbox and events pages (docs/decisions.md sections 29 and 26): the sandbox buttons of a test
 * order (the test key is issued on the keys page, portal-keys-pages.ts), and the event subscriptions with a test event and
 * the delivery log. Owners and developers act; accountants read.
 */
export function portalSandboxPages(pages: App, deps: { portal: PortalService }) {
  const { portal } = deps;

  pages.post(
    '/portal/orders/:id/sandbox',
    {
      preValidation: allowRoles('owner', 'developer'),
      schema: { params: IdParams, body: FormBody({ amount: Field(), outcome: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const id = request.params.id;
      if (!isSandboxOutcome(form.outcome))
        throw new AppError('VALIDATION_ERROR', [{ field: 'outcome', problem: 'unknown' }]);
      await portal.driveSandbox(user, id, form.outcome, form.amount || undefined, request.ip);
      return reply.redirect(`/portal/orders/${encodeURIComponent(id)}?msg=sandbox_done`, 303);
    },
  );

  pages.get('/portal/events', async (request, reply) => {
    const user = portalUserOf(request);
    const q = request.query as Form;
    const sandbox = q.mode === 'test';
    const [subscriptions, deliveries] = await Promise.all([
      portal.subscriptions.list(user, sandbox),
      portal.subscriptions.deliveries(user, sandbox),
    ]);
    return renderPortal(request, reply, 'events.eta', {
      subscriptions,
      deliveries,
      sandbox,
      eventTypes: EVENT_TYPES,
    });
  });

  pages.post(
    '/portal/events',
    {
      preValidation: allowRoles('owner', 'developer'),
      schema: { body: FormBody({ mode: Field(), url: Field() }) },
    },
    async (request, reply) => {
      // One checkbox per event type (`ev_<type>`): read by name from the form's fields.
      const form: Form = request.body;
      const user = portalUserOf(request);
      const sandbox = form.mode === 'test';
      await portal.subscriptions.subscribe(
        user,
        sandbox,
        // One checkbox name per event type (`ev_<type>=on`): form fields never repeat (src/lib/form-fields.ts).
        { url: String(form.url ?? ''), events: EVENT_TYPES.filter((e) => form[`ev_${e}`] === 'on') },
        request.ip,
      );
      return reply.redirect(`/portal/events?msg=subscribed${modeQuery(sandbox)}`, 303);
    },
  );

  pages.post(
    '/portal/events/:id/delete',
    {
      preValidation: allowRoles('owner', 'developer'),
      schema: { params: IdParams, body: FormBody({ mode: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const sandbox = form.mode === 'test';
      await portal.subscriptions.remove(user, sandbox, request.params.id);
      return reply.redirect(`/portal/events?msg=deleted${modeQuery(sandbox)}`, 303);
    },
  );

  pages.post(
    '/portal/events/:id/test',
    {
      preValidation: allowRoles('owner', 'developer'),
      schema: { params: IdParams, body: FormBody({ mode: Field(), type: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const sandbox = form.mode === 'test';
      await portal.subscriptions.sendTest(user, sandbox, request.params.id, form.type || undefined);
      return reply.redirect(`/portal/events?msg=test_sent${modeQuery(sandbox)}`, 303);
    },
  );
}

/** The events page's mode in a redirect: the test subscriptions' page stays on test. */
const modeQuery = (sandbox: boolean) => (sandbox ? '&mode=test' : '');

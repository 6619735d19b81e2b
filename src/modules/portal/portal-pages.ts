import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import type { PortalService } from './portal-service.js';
import { checkPortalCsrf, type Form, portalUserOf, renderPortal, requireRole } from './portal-session.js';
import type { PortalUsers } from './portal-users.js';

/** The query string of a filter, for links that keep it (paging, CSV). */
export function keepQuery(q: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...extra }))
    if (v !== undefined && v !== '' && k !== 'msg' && k !== 'error') params.set(k, v);
  return params.toString();
}

/**
 * The portal's pages (issue 21 section 1): orders with search and filters in the URL, an order with
 * its timeline, receipts, appeals and webhook deliveries (resend), the statement with the running
 * balance, appeals, API keys (rotation with a confirmation and a grace period: the owner), users
 * (invitations: the owner) and the integration page. Accountants read only.
 */
export function portalPages(pages: App, deps: { portal: PortalService; users: PortalUsers }) {
  const { portal } = deps;
  const back = (path: string, msg: string) =>
    `${path}${path.includes('?') ? '&' : '?'}msg=${encodeURIComponent(msg)}`;

  pages.get('/portal', async (_request, reply) => reply.redirect('/portal/orders', 303));

  pages.get('/portal/orders', async (request, reply) => {
    const user = portalUserOf(request);
    const q = request.query as Form;
    const page = Math.max(1, Math.min(10_000, Number.parseInt(q.page ?? '1', 10) || 1));
    const [list, balance] = await Promise.all([portal.listOrders(user, q, page), portal.balance(user)]);
    return renderPortal(request, reply, 'orders.eta', {
      list,
      balance,
      q,
      page,
      query: keepQuery(q),
      nextQuery: keepQuery(q, { page: String(page + 1) }),
      prevQuery: keepQuery(q, { page: String(page - 1) }),
    });
  });

  pages.get('/portal/orders/:id', async (request, reply) => {
    const user = portalUserOf(request);
    const data = await portal.order(user, (request.params as { id: string }).id);
    return renderPortal(request, reply, 'order.eta', data);
  });

  pages.post('/portal/deliveries/:id/resend', async (request, reply) => {
    const form = request.body as Form;
    checkPortalCsrf(request, form._csrf);
    const user = requireRole(request, 'owner', 'developer');
    const copy = await portal.resend(user, (request.params as { id: string }).id, request.ip);
    return reply.redirect(back(`/portal/orders/${encodeURIComponent(copy.order_id ?? '')}`, 'resent'), 303);
  });

  pages.get('/portal/statement', async (request, reply) => {
    const user = portalUserOf(request);
    const q = request.query as Form;
    const period = portal.statementPeriod(user, q);
    const lines = [];
    let opening = '0';
    // The page shows at most 1000 lines; the CSV has them all.
    for await (const line of portal.statement(period)) {
      if ('opening' in line) opening = line.opening;
      else if (lines.length < 1000) lines.push(line);
      else break;
    }
    return renderPortal(request, reply, 'statement.eta', {
      lines,
      opening,
      period: { currency: period.currency, from: period.from.toISOString(), to: period.to.toISOString() },
      q,
      query: keepQuery(q),
    });
  });

  pages.get('/portal/appeals', async (request, reply) => {
    const user = portalUserOf(request);
    return renderPortal(request, reply, 'appeals.eta', { list: await portal.appeals(user) });
  });

  pages.get('/portal/keys', async (request, reply) => {
    requireRole(request, 'owner', 'developer');
    const q = request.query as Form;
    return renderPortal(request, reply, 'keys.eta', {
      confirm: q.confirm === '1',
      grace: q.grace ?? '0',
      rotated: null,
    });
  });
  pages.post('/portal/keys/rotate', async (request, reply) => {
    const form = request.body as Form;
    checkPortalCsrf(request, form._csrf);
    const user = requireRole(request, 'owner');
    const grace = Number.parseInt(form.grace ?? '0', 10);
    if (form.confirmed !== 'yes')
      return reply.redirect(`/portal/keys?confirm=1&grace=${Number.isFinite(grace) ? grace : 0}`, 303);
    const rotated = await portal.rotateKey(user, Number.isFinite(grace) ? grace : -1, request.ip);
    // The new key is shown once, in this answer only (never in a URL or a later page).
    return renderPortal(request, reply, 'keys.eta', { confirm: false, grace: '0', rotated });
  });

  pages.get('/portal/users', async (request, reply) => {
    const user = requireRole(request, 'owner');
    return renderPortal(request, reply, 'users.eta', {
      list: await deps.users.list(user.merchantId),
      link: null,
    });
  });
  pages.post('/portal/users/invite', async (request, reply) => {
    const form = request.body as Form;
    checkPortalCsrf(request, form._csrf);
    const user = requireRole(request, 'owner');
    const invite = await deps.users.invite(
      user.merchantId,
      { email: String(form.email ?? ''), role: String(form.role ?? '') },
      { name: `portal:${user.email}`, ip: request.ip },
    );
    const link = `${request.protocol}://${request.host}/portal/invite/${invite.code}`;
    return renderPortal(request, reply, 'users.eta', { list: await deps.users.list(user.merchantId), link });
  });

  pages.get('/portal/integration', async (request, reply) => {
    const user = portalUserOf(request);
    const base = `${request.protocol}://${request.host}`;
    return renderPortal(request, reply, 'integration.eta', { merchantId: user.merchantId, base });
  });

  // Unknown portal paths under a session: the portal's own 404 page.
  pages.get('/portal/*', async () => {
    throw new AppError('NOT_FOUND');
  });
}

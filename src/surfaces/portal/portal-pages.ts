import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { CRYPTO_TYPES, FIAT_TYPES, PAYOUT_TYPES } from '../../modules/catalog/index.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import type { PortalService } from './portal-service.js';
import { allowRoles, type Form, portalUserOf, renderPortal } from './portal-session.js';
import type { PortalUsers } from './portal-users.js';

/** The payment types the orders filter offers (a choice, never free text). */
const ORDER_TYPES = [...new Set([...FIAT_TYPES, ...CRYPTO_TYPES, ...PAYOUT_TYPES])];

/**
 * The integration page's snippets, built as text (a template would drop a newline after a tag):
 * a curl that creates an order with `API_KEY` from the environment, and the SDK's equivalent.
 */
export function integrationSnippets(base: string, merchantId: string) {
  const body = JSON.stringify({ merchant_id: merchantId, amount: 1500, type: 'sim' });
  const curl = [
    '# export API_KEY=<your key> first (API keys page)',
    `BODY='${body}'`,
    `SIG=$(printf '%s|%s' "$API_KEY" "$BODY" | sha256sum | cut -d' ' -f1)`,
    `curl -s ${base}/merchant/createOrder -H 'Content-Type: application/json' \\`,
    `  -H "client-api-key: $API_KEY" -H "x-api-key: $SIG" -d "$BODY"`,
  ].join('\n');
  const sdk = [
    "import { createMerchantClient } from '@payment-orders/merchant-sdk';",
    `const api = createMerchantClient({ baseUrl: '${base}', merchantId: '${merchantId}', apiKey: process.env.API_KEY ?? '' });`,
    "const order = await api.createOrder({ amount: 1500, type: 'sim' });",
    'console.log(order.payment_details);',
  ].join('\n');
  return { merchantId, base, curl, sdk };
}

/** The query string of a filter, for links that keep it (paging, CSV). */
export function keepQuery(q: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...extra }))
    if (v !== undefined && v !== '' && k !== 'msg' && k !== 'error') params.set(k, v);
  return params.toString();
}

/**
 * The portal's pages (docs/decisions.md section 28): orders with search and filters in the URL, an order with
 * its timeline, receipts, appeals and webhook deliveries (resend), the statement with the running
 * balance, appeals, users (invitations: the owner) and the integration page; the keys page is
 * portal-keys-pages.ts. Accountants read only.
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
      types: ORDER_TYPES,
      q,
      page,
      query: keepQuery(q),
      nextQuery: keepQuery(q, { page: String(page + 1) }),
      prevQuery: keepQuery(q, { page: String(page - 1) }),
    });
  });

  pages.get('/portal/orders/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const user = portalUserOf(request);
    const data = await portal.order(user, request.params.id);
    return renderPortal(request, reply, 'order.eta', data);
  });

  pages.post(
    '/portal/deliveries/:id/resend',
    { preValidation: allowRoles('owner', 'developer'), schema: { params: IdParams, body: FormBody({}) } },
    async (request, reply) => {
      const user = portalUserOf(request);
      const copy = await portal.resend(user, request.params.id, request.ip);
      return reply.redirect(back(`/portal/orders/${encodeURIComponent(copy.order_id ?? '')}`, 'resent'), 303);
    },
  );

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

  pages.get('/portal/users', { preValidation: allowRoles('owner') }, async (request, reply) => {
    const user = portalUserOf(request);
    return renderPortal(request, reply, 'users.eta', {
      list: await deps.users.list(user.merchantId),
      link: null,
    });
  });
  pages.post(
    '/portal/users/invite',
    { preValidation: allowRoles('owner'), schema: { body: FormBody({ email: Field(), role: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const invite = await deps.users.invite(
        user.merchantId,
        { email: String(form.email ?? ''), role: String(form.role ?? '') },
        { name: `portal:${user.email}`, ip: request.ip },
      );
      const link = `${request.protocol}://${request.host}/portal/invite/${invite.code}`;
      return renderPortal(request, reply, 'users.eta', {
        list: await deps.users.list(user.merchantId),
        link,
      });
    },
  );

  pages.get('/portal/integration', async (request, reply) => {
    const user = portalUserOf(request);
    const base = `${request.protocol}://${request.host}`;
    return renderPortal(request, reply, 'integration.eta', integrationSnippets(base, user.merchantId));
  });

  // Unknown portal paths under a session: the portal's own 404 page.
  pages.get('/portal/*', async () => {
    throw new AppError('NOT_FOUND');
  });
}

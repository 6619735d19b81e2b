import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/schemas.js';
import { csvStream } from '../../lib/csv-stream.js';
import { parseUtcDateTime, parseUtcPeriodEnd } from '../../lib/utc-date.js';
import { CRYPTO_TYPES, FIAT_TYPES, PAYOUT_TYPES } from '../../modules/catalog/index.js';
import { modeFilter, type OrderFilter, orderCsv } from '../../modules/orders/index.js';
import { needs } from './backoffice-session.js';
import { type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

/** The payment types the orders filter offers (a choice, never free text). */
const ORDER_TYPES = [...new Set([...FIAT_TYPES, ...CRYPTO_TYPES, ...PAYOUT_TYPES])];

const SORTS = ['created_desc', 'created_asc', 'amount_desc', 'amount_asc'] as const;

/** The query string of a filter, for links that keep it (paging, sorting, CSV). */
export function keepQuery(q: Form, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...extra }))
    if (v !== undefined && v !== '' && !/^(msg|error)(_\w+)?$/.test(k)) params.set(k, v);
  return params.toString();
}

/**
 * The orders list (docs/decisions.md section 32): one search box (`q`: internal id, merchant order id, amount,
 * requisite or deposit address, client id, a chain transaction's hash, a bank message's id or text),
 * filters, sorting and paging kept in the URL, and the streamed CSV of the same filter.
 */
export function orderListPages(pages: App, services: ConsoleServices) {
  const { orders, crypto, deviceReview } = services;

  async function filterOf(request: FastifyRequest): Promise<OrderFilter> {
    const q = request.query as Form;
    const search = str(q.q);
    const alsoIds = search
      ? [...(await crypto.ordersOfTx(search)), ...(await deviceReview.ordersOfMessage(search))]
      : [];
    const sort = SORTS.find((s) => s === q.sort);
    return {
      // Test (sandbox) orders only when the operator asks for them (docs/decisions.md section 36).
      ...modeFilter(str(q.mode)),
      ...(str(q.merchant_id) ? { merchantId: str(q.merchant_id) } : {}),
      ...(str(q.status) ? { status: str(q.status) } : {}),
      ...(str(q.direction) ? { direction: str(q.direction) } : {}),
      ...(str(q.type) ? { type: str(q.type) } : {}),
      ...(str(q.from) ? { from: parseUtcDateTime('from', String(str(q.from))) } : {}),
      ...(str(q.to) ? { to: parseUtcPeriodEnd('to', String(str(q.to))) } : {}),
      ...(search ? { search, alsoIds } : {}),
      ...(sort ? { sort } : {}),
    };
  }

  pages.get('/backoffice/orders', { preValidation: needs('orders.read') }, async (request, reply) => {
    const q = request.query as Form;
    const page = Math.max(1, Math.min(10_000, Number(q.page ?? 1) || 1));
    const list = await orders.listAdminOrders(await filterOf(request), page, 50);
    return render(request, reply, 'orders.eta', {
      list,
      q,
      types: ORDER_TYPES,
      page,
      query: keepQuery(q),
      pageQuery: (n: number) => keepQuery(q, { page: String(n) }),
      sortQuery: (sort: string) => keepQuery(q, { sort, page: '1' }),
    });
  });

  pages.get('/backoffice/orders.csv', { preValidation: needs('orders.read') }, async (request, reply) => {
    const filter = await filterOf(request);
    async function* rows() {
      for await (const o of orders.streamAdminOrders(filter)) yield orderCsv.orderCsvRow(o);
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="orders.csv"')
      .send(csvStream(orderCsv.ORDER_CSV_COLUMNS, rows()));
  });
}

import type { App } from '../../http/schemas.js';
import { csvStream } from '../../lib/csv-stream.js';
import type { PortalService } from './portal-service.js';
import { type Form, portalUserOf } from './portal-session.js';

/** The orders CSV's columns: the API's field names, numbers as the API shows them, ISO 8601 UTC times. */
export const ORDER_COLUMNS = [
  'id',
  'order_id',
  'created_at',
  'finished_at',
  'direction',
  'type',
  'status',
  'status_reason',
  'currency',
  'amount',
  'amountAfterFee',
  'fee',
  'client_id',
  'comment',
  'test',
] as const;

/** The statement CSV's columns. */
export const STATEMENT_COLUMNS = [
  'id',
  'created_at',
  'kind',
  'order_id',
  'memo',
  'amount',
  'balance',
] as const;

/** `GET /portal/orders.csv` and `GET /portal/statement.csv`, for any filter of their pages. */
export function portalExports(pages: App, deps: { portal: PortalService }) {
  const { portal } = deps;
  const attachment = (name: string) => `attachment; filename="${name}"`;

  pages.get('/portal/orders.csv', async (request, reply) => {
    const user = portalUserOf(request);
    const stream = portal.ordersStream(user, request.query as Form);
    async function* rows() {
      for await (const row of stream) {
        const o = portal.orderView(row) as unknown as Record<string, unknown>;
        yield Object.fromEntries(ORDER_COLUMNS.map((c) => [c, o[c] ?? '']));
      }
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', attachment(`orders-${user.merchantId}.csv`))
      .send(csvStream(ORDER_COLUMNS, rows()));
  });

  pages.get('/portal/statement.csv', async (request, reply) => {
    const user = portalUserOf(request);
    const period = portal.statementPeriod(user, request.query as Form);
    async function* rows() {
      for await (const line of portal.statement(period)) {
        if ('opening' in line) {
          yield {
            id: '',
            created_at: period.from.toISOString(),
            kind: 'opening_balance',
            order_id: '',
            memo: '',
            amount: '',
            balance: line.opening,
          };
          continue;
        }
        yield { ...line };
      }
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', attachment(`statement-${user.merchantId}-${period.currency}.csv`))
      .send(csvStream(STATEMENT_COLUMNS, rows()));
  });
}

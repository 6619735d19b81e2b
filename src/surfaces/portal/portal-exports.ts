import type { App } from '../../http/schemas.js';
import { csvStream } from '../../lib/csv-stream.js';
import { STATEMENT_CSV_COLUMNS } from '../../modules/ledger/index.js';
import { orderCsv } from '../../modules/orders/index.js';
import type { PortalService } from './portal-service.js';
import { type Form, portalUserOf } from './portal-session.js';

/** `GET /portal/orders.csv` and `GET /portal/statement.csv`, for any filter of their pages. */
export function portalExports(pages: App, deps: { portal: PortalService }) {
  const { portal } = deps;
  const attachment = (name: string) => `attachment; filename="${name}"`;

  pages.get('/portal/orders.csv', async (request, reply) => {
    const user = portalUserOf(request);
    const stream = portal.ordersStream(user, request.query as Form);
    async function* rows() {
      for await (const row of stream) yield orderCsv.orderCsvRow(portal.orderView(row));
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', attachment(`orders-${user.merchantId}.csv`))
      .send(csvStream(orderCsv.ORDER_CSV_COLUMNS, rows()));
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
      .send(csvStream(STATEMENT_CSV_COLUMNS, rows()));
  });
}

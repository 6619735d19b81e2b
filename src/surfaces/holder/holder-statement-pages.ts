import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { csvStream } from '../../lib/csv-stream.js';
import { STATEMENT_CSV_COLUMNS } from '../../modules/ledger/index.js';
import { Field } from '../../platform/sessions/index.js';
import type { HolderPage } from './holder-page-service.js';
import { type HolderSessions, renderHolder } from './holder-session.js';

/** `?from=&to=`: ISO dates (the form's date inputs); default the last 30 days. */
const PeriodQuery = Type.Object({ from: Field(40), to: Field(40), lang: Field(5), msg: Field(40) });

/** `YYYY-MM-DD` of an ISO time (the date inputs' value). */
const day = (iso: string) => iso.slice(0, 10);

/**
 * The holder's statement (docs/decisions.md "The holder's own page"): the holders module's statement
 * of a period with its settlements, and the same lines as CSV (the ledger's STATEMENT_CSV_COLUMNS,
 * streamed a page at a time).
 */
export function holderStatementPages(pages: App, sessions: HolderSessions, page: HolderPage) {
  pages.get('/holder/statement', { schema: { querystring: PeriodQuery } }, async (request, reply) => {
    const holderId = sessions.userOf(request).holderId;
    const { statement, settlements } = await page.statement(holderId, request.query);
    return renderHolder(request, reply, sessions, 'statement.eta', {
      statement,
      settlements,
      fromDay: day(statement.from),
      // The last day shown: the period ends at the start of the day after it.
      toDay: day(new Date(Date.parse(statement.to) - 1).toISOString()),
    });
  });
  pages.get('/holder/statement.csv', { schema: { querystring: PeriodQuery } }, async (request, reply) => {
    const { currency, rows } = await page.statementRows(sessions.userOf(request).holderId, request.query);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="statement-${currency}.csv"`)
      .send(csvStream(STATEMENT_CSV_COLUMNS, rows));
  });
}

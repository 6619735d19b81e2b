import type { Executor } from '../../db/database.js';
import { invalidField } from '../../lib/errors.js';
import { type AccountLine, accountStatementLines } from '../ledger/index.js';
import { HOLDER_ACCOUNTS } from './holders-rules.js';

/** The longest period one statement answer covers (its lines are held in memory). */
const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

/** A holder's statement: the balance before `from`, the entries of [from, to), the balance after. */
export interface HolderStatement {
  holder_id: string;
  currency: string;
  from: string;
  to: string;
  opening: string;
  entries: AccountLine[];
  closing: string;
}

/**
 * The period of a statement from the query: `from`/`to` ISO dates or times; default the last 30
 * days up to `now`. VALIDATION_ERROR for an unreadable date, `to` not after `from`, or more than a
 * year.
 */
export function statementPeriod(query: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const read = (v: string | undefined, field: string, fallback: Date) => {
    if (v === undefined) return fallback;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw invalidField(field, 'must be an ISO 8601 date or time');
    return d;
  };
  const to = read(query.to, 'to', now);
  const from = read(query.from, 'from', new Date(to.getTime() - 30 * DAY_MS));
  if (to <= from) throw invalidField('to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS)
    throw invalidField('from', `the period is at most ${MAX_PERIOD_DAYS} days`);
  return { from, to };
}

/** Reads a holder's statement over the ledger's account statement (the same code as merchants'). */
export async function holderStatement(
  ex: Executor,
  holderId: string,
  currency: string,
  period: { from: Date; to: Date },
): Promise<HolderStatement> {
  let opening = '0';
  const entries: AccountLine[] = [];
  const lines = accountStatementLines(ex, { account: HOLDER_ACCOUNTS.held(holderId), currency, ...period });
  for await (const line of lines) {
    if ('opening' in line) opening = line.opening;
    else entries.push(line);
  }
  return {
    holder_id: holderId,
    currency,
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    opening,
    entries,
    closing: entries.at(-1)?.balance ?? opening,
  };
}

/** The statement's CSV rows: an `opening_balance` row at `from`, then each entry, paged from the ledger. */
export async function* statementCsvRows(
  ex: Executor,
  holderId: string,
  currency: string,
  period: { from: Date; to: Date },
): AsyncGenerator<Record<string, unknown>> {
  const lines = accountStatementLines(ex, { account: HOLDER_ACCOUNTS.held(holderId), currency, ...period });
  for await (const line of lines) {
    if ('opening' in line) {
      const at = period.from.toISOString();
      yield {
        id: '',
        created_at: at,
        kind: 'opening_balance',
        order_id: '',
        memo: '',
        amount: '',
        balance: line.opening,
      };
    } else yield { ...line };
  }
}

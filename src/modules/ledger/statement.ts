import type { Decimal } from 'decimal.js';
import type { Executor } from '../../db/database.js';
import { type AccountLine, accountBalance, accountStatementLines } from './account-books.js';
import { ACCOUNTS } from './ledger-repository.js';

/** One line of a statement: a ledger entry of the merchant account and the balance after it. */
export type StatementLine = AccountLine;

/** A statement's period: [from, to), one currency of one merchant. */
export interface StatementPeriod {
  merchantId: string;
  currency: string;
  from: Date;
  to: Date;
}

/** The balance before the period: the sum of every earlier entry of the account in that currency. */
export async function openingBalance(ex: Executor, p: StatementPeriod): Promise<Decimal> {
  return accountBalance(ex, ACCOUNTS.merchant(p.merchantId), p.currency, p.from);
}

/**
 * The statement of a period, oldest first, with the running balance, read in pages of `pageSize`
 * by entry id so that no more than one page is held at a time (streamed CSV exports; the account's
 * statement in `account-books.ts`). Yields the opening balance first (`opening`), then each line.
 */
export function statementLines(
  ex: Executor,
  p: StatementPeriod,
  pageSize = 500,
): AsyncGenerator<{ opening: string } | StatementLine> {
  const { merchantId, ...period } = p;
  return accountStatementLines(ex, { ...period, account: ACCOUNTS.merchant(merchantId) }, pageSize);
}

/**
 * The columns of every ledger statement's CSV, a merchant's (portal) and a holder's (admin API): the
 * JSON statement's entry fields, the first row being the opening balance.
 */
export const STATEMENT_CSV_COLUMNS = [
  'id',
  'created_at',
  'kind',
  'order_id',
  'memo',
  'amount',
  'balance',
] as const;

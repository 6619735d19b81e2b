import type { Decimal } from 'decimal.js';
import { and, asc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { ledgerEntries } from '../../db/tables/ledger.js';
import { money } from '../../lib/money.js';
import { ACCOUNTS } from './ledger-repository.js';

/** One line of a statement: a ledger entry of the merchant account and the balance after it. */
export interface StatementLine {
  id: number;
  created_at: string;
  kind: string;
  order_id: string | null;
  memo: string | null;
  /** Signed, currency units, as a decimal string. */
  amount: string;
  /** The running balance after this entry, currency units. */
  balance: string;
}

/** A statement's period: [from, to), one currency of one merchant. */
export interface StatementPeriod {
  merchantId: string;
  currency: string;
  from: Date;
  to: Date;
}

/** The balance before the period: the sum of every earlier entry of the account in that currency. */
export async function openingBalance(ex: Executor, p: StatementPeriod): Promise<Decimal> {
  const rows = await ex
    .select({ sum: sql<string | null>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.account, ACCOUNTS.merchant(p.merchantId)),
        eq(ledgerEntries.currency, p.currency),
        lt(ledgerEntries.createdAt, p.from),
      ),
    );
  return money(rows[0]?.sum ?? 0);
}

/**
 * The statement of a period, oldest first, with the running balance, read in pages of `pageSize`
 * by entry id so that no more than one page is held at a time (docs/decisions.md section 28: streamed CSV exports).
 * Yields the opening balance first (`opening`), then each line.
 */
export async function* statementLines(
  ex: Executor,
  p: StatementPeriod,
  pageSize = 500,
): AsyncGenerator<{ opening: string } | StatementLine> {
  let balance = await openingBalance(ex, p);
  yield { opening: balance.toFixed() };
  let after = 0;
  for (;;) {
    const rows = await ex
      .select()
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.account, ACCOUNTS.merchant(p.merchantId)),
          eq(ledgerEntries.currency, p.currency),
          gte(ledgerEntries.createdAt, p.from),
          lt(ledgerEntries.createdAt, p.to),
          gt(ledgerEntries.id, after),
        ),
      )
      .orderBy(asc(ledgerEntries.id))
      .limit(pageSize);
    for (const r of rows) {
      balance = balance.plus(r.amount);
      yield {
        id: r.id,
        created_at: r.createdAt.toISOString(),
        kind: r.kind,
        order_id: r.orderId,
        memo: r.memo,
        amount: money(r.amount).toFixed(),
        balance: balance.toFixed(),
      };
    }
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]?.id ?? after;
  }
}

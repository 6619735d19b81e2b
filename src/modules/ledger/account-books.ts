import type { Decimal } from 'decimal.js';
import { and, asc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { ledgerEntries } from '../../db/tables/ledger.js';
import { money } from '../../lib/money.js';

// The books of any one account (a holder's, a system account): sums by kind and statements, over
// the same entries as the merchants' (docs/decisions.md section 6).

/** One entry of an account's statement and the balance after it; amounts are decimal strings. */
export interface AccountLine {
  id: number;
  created_at: string;
  kind: string;
  order_id: string | null;
  memo: string | null;
  /** Signed, currency units. */
  amount: string;
  /** The running balance after this entry, currency units. */
  balance: string;
}

/** A statement of an account in one currency over [from, to). */
export interface AccountPeriod {
  account: string;
  currency: string;
  from: Date;
  to: Date;
}

/**
 * The sum of an account's entries in `currency` per journal kind (e.g. `holder_receipt` and
 * `holder_settlement`): the figures an account's identity is checked with. Kinds without entries
 * are absent.
 */
export async function accountSumsByKind(
  ex: Executor,
  account: string,
  currency: string,
): Promise<Map<string, Decimal>> {
  const rows = await ex
    .select({ kind: ledgerEntries.kind, sum: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.account, account), eq(ledgerEntries.currency, currency)))
    .groupBy(ledgerEntries.kind);
  return new Map(rows.map((r) => [r.kind, money(r.sum)]));
}

/** The balance of an account before `before` (every entry when absent), in `currency`. */
export async function accountBalance(
  ex: Executor,
  account: string,
  currency: string,
  before?: Date,
): Promise<Decimal> {
  const rows = await ex
    .select({ sum: sql<string | null>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.account, account),
        eq(ledgerEntries.currency, currency),
        before ? lt(ledgerEntries.createdAt, before) : undefined,
      ),
    );
  return money(rows[0]?.sum ?? 0);
}

/**
 * An account's statement, oldest first, with the running balance, read in pages of `pageSize` by
 * entry id. Yields the opening balance first (`opening`), then each line.
 */
export async function* accountStatementLines(
  ex: Executor,
  p: AccountPeriod,
  pageSize = 500,
): AsyncGenerator<{ opening: string } | AccountLine> {
  let balance = await accountBalance(ex, p.account, p.currency, p.from);
  yield { opening: balance.toFixed() };
  let after = 0;
  for (;;) {
    const rows = await ex
      .select()
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.account, p.account),
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

import type { Decimal } from 'decimal.js';
import { and, eq, getTableName, sql } from 'drizzle-orm';
import { v4 as uuidv4 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { balances, holds, ledgerEntries } from '../../db/tables/ledger.js';
import { money, toDbAmount } from '../../lib/money.js';

/** Ledger account names. A merchant account's entries sum to that merchant's balance. */
export const ACCOUNTS = {
  merchant: (merchantId: string) => `merchant:${merchantId}`,
  payinClearing: 'system:payin_clearing',
  payoutClearing: 'system:payout_clearing',
  feeRevenue: 'system:fee_revenue',
  adjustments: 'system:adjustments',
} as const;

export interface JournalEntry {
  account: string;
  /** Set for merchant accounts: their running balance row moves with the entry. */
  merchantId?: string;
  currency: string;
  /** Signed amount in currency units; positive credits the account. */
  amount: Decimal;
}

export interface Journal {
  kind: string;
  orderId?: string;
  /**
   * The journal's once-only key (docs/decisions.md section 35), unique per account:
   * `<kind>:<order id>` for an order's credit or debit. A second journal with a posted key is a no-op.
   */
  idempotencyKey?: string;
  memo?: string;
  entries: JournalEntry[];
}

/** A journal whose entries do not sum to zero per currency: a bug, never a merchant error. */
export class UnbalancedJournalError extends Error {}

/** A journal whose key was posted for only some of its accounts: a bug, never a retry. */
export class PartialJournalError extends Error {}

/**
 * Posts a balanced journal (docs/decisions.md section 6: double-entry) and moves the running balances of
 * the merchant accounts in it. Call inside the transaction of the change it records. With an
 * `idempotencyKey` already posted nothing is written (the unique index `ledger_entries_once_idx` decides,
 * also between concurrent transactions) and the answer is `applied: false`.
 * Throws UnbalancedJournalError when the entries do not sum to zero per currency.
 */
export async function postJournal(
  ex: Executor,
  journal: Journal,
): Promise<{ journalId: string; applied: boolean }> {
  const sums = new Map<string, Decimal>();
  for (const e of journal.entries) sums.set(e.currency, (sums.get(e.currency) ?? money(0)).plus(e.amount));
  for (const [currency, sum] of sums) {
    if (!sum.isZero())
      throw new UnbalancedJournalError(`journal ${journal.kind} is off by ${sum} ${currency}`);
  }
  const journalId = uuidv4();
  const rows = journal.entries
    .filter((e) => !e.amount.isZero())
    .map((e) => ({
      journalId,
      account: e.account,
      merchantId: e.merchantId ?? null,
      currency: e.currency,
      amount: toDbAmount(e.amount),
      kind: journal.kind,
      orderId: journal.orderId ?? null,
      memo: journal.memo ?? null,
      idempotencyKey: journal.idempotencyKey ?? null,
    }));
  if (rows.length === 0) return { journalId, applied: true };
  const inserted = await ex
    .insert(ledgerEntries)
    .values(rows)
    .onConflictDoNothing({ target: [ledgerEntries.idempotencyKey, ledgerEntries.account] })
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return { journalId, applied: false };
  if (inserted.length !== rows.length)
    throw new PartialJournalError(`journal ${journal.idempotencyKey} was posted for some accounts only`);
  for (const e of journal.entries) {
    if (!e.merchantId || e.amount.isZero()) continue;
    await addToBalance(ex, e.merchantId, e.currency, { balance: e.amount });
  }
  return { journalId, applied: true };
}

/**
 * Moves a merchant's running balance and/or reserved amount by the given signed deltas. A release
 * of reserved funds (negative) updates the existing row: PostgreSQL checks `reserved >= 0` on the
 * row an upsert proposes before it finds the conflict, so a negative upsert would fail there.
 */
export async function addToBalance(
  ex: Executor,
  merchantId: string,
  currency: string,
  delta: { balance?: Decimal; reserved?: Decimal },
): Promise<void> {
  const b = toDbAmount(delta.balance ?? money(0));
  const r = toDbAmount(delta.reserved ?? money(0));
  const set = {
    balance: sql`${balances.balance} + ${b}::numeric`,
    reserved: sql`${balances.reserved} + ${r}::numeric`,
    updatedAt: sql`now()`,
  };
  if (delta.reserved?.isNegative()) {
    await ex
      .update(balances)
      .set(set)
      .where(and(eq(balances.merchantId, merchantId), eq(balances.currency, currency)));
    return;
  }
  await ex
    .insert(balances)
    .values({ merchantId, currency, balance: b, reserved: r })
    .onConflictDoUpdate({ target: [balances.merchantId, balances.currency], set });
}

export interface BalanceRow {
  currency: string;
  balance: Decimal;
  reserved: Decimal;
}

/**
 * Locks and returns the merchant's balance row in `currency` (created at zero when missing), so that
 * checks of the available amount and the change they allow are one atomic step.
 */
export async function lockBalance(ex: Executor, merchantId: string, currency: string): Promise<BalanceRow> {
  await ex.insert(balances).values({ merchantId, currency }).onConflictDoNothing();
  const rows = await ex
    .select()
    .from(balances)
    .where(and(eq(balances.merchantId, merchantId), eq(balances.currency, currency)))
    .for('update');
  const row = rows[0];
  return { currency, balance: money(row?.balance ?? 0), reserved: money(row?.reserved ?? 0) };
}

/** Every balance row of the merchant. */
export async function listBalances(ex: Executor, merchantId: string): Promise<BalanceRow[]> {
  const rows = await ex
    .select()
    .from(balances)
    .where(eq(balances.merchantId, merchantId))
    .orderBy(balances.currency);
  return rows.map((r) => ({ currency: r.currency, balance: money(r.balance), reserved: money(r.reserved) }));
}

/** Sum of the merchant account's ledger entries per currency (the invariant: equals the balance row). */
export async function ledgerSums(ex: Executor, merchantId: string): Promise<Map<string, Decimal>> {
  const rows = await ex
    .select({ currency: ledgerEntries.currency, sum: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.account, ACCOUNTS.merchant(merchantId)))
    .groupBy(ledgerEntries.currency);
  return new Map(rows.map((r) => [r.currency, money(r.sum)]));
}

export async function listEntries(ex: Executor, merchantId: string, limit = 100) {
  return ex
    .select()
    .from(ledgerEntries)
    .where(eq(ledgerEntries.account, ACCOUNTS.merchant(merchantId)))
    .orderBy(sql`${ledgerEntries.id} DESC`)
    .limit(limit);
}

/** Reserves `amount` of the merchant's balance for a payout order (docs/decisions.md section 6). */
export async function createHold(
  ex: Executor,
  hold: { orderId: string; merchantId: string; currency: string; amount: Decimal },
): Promise<void> {
  await ex.insert(holds).values({ ...hold, amount: toDbAmount(hold.amount), status: 'active' });
  await addToBalance(ex, hold.merchantId, hold.currency, { reserved: hold.amount });
}

/**
 * Ends a payout's hold: `captured` debits the balance (a balanced journal keyed `payout_debit:<order>`:
 * merchant -amountAfterFee, payout clearing +amount, fee revenue +fee); `released` only frees the
 * reservation. A compare-and-set from `active`: returns the hold's amount, or undefined when the order
 * had no active hold (never settles twice). `now` is the service clock's time (settled_at).
 */
export async function settleHold(
  ex: Executor,
  orderId: string,
  outcome: 'captured' | 'released',
  now: Date,
  debit?: { gross: Decimal; fee: Decimal },
): Promise<{ currency: string; amount: Decimal } | undefined> {
  const rows = await ex
    .update(holds)
    .set({ status: outcome, settledAt: now })
    .where(and(eq(holds.orderId, orderId), eq(holds.status, 'active')))
    .returning();
  const hold = rows[0];
  if (!hold) return undefined;
  const amount = money(hold.amount);
  await addToBalance(ex, hold.merchantId, hold.currency, { reserved: amount.negated() });
  if (outcome === 'captured') {
    const fee = debit?.fee ?? money(0);
    await postJournal(ex, {
      kind: 'payout_debit',
      orderId,
      idempotencyKey: `payout_debit:${orderId}`,
      entries: [
        {
          account: ACCOUNTS.merchant(hold.merchantId),
          merchantId: hold.merchantId,
          currency: hold.currency,
          amount: amount.negated(),
        },
        { account: ACCOUNTS.payoutClearing, currency: hold.currency, amount: amount.minus(fee) },
        { account: ACCOUNTS.feeRevenue, currency: hold.currency, amount: fee },
      ],
    });
  }
  return { currency: hold.currency, amount };
}

/** Sum of the merchant's active holds per currency (the invariant: equals the reserved column). */
export async function activeHoldSums(ex: Executor, merchantId: string): Promise<Map<string, Decimal>> {
  const rows = await ex
    .select({ currency: holds.currency, sum: sql<string>`sum(${holds.amount})` })
    .from(holds)
    .where(and(eq(holds.merchantId, merchantId), eq(holds.status, 'active')))
    .groupBy(holds.currency);
  return new Map(rows.map((r) => [r.currency, money(r.sum)]));
}

/**
 * Ledger posting of a successful PAYIN (docs/decisions.md section 6): the merchant gets the net, fee
 * revenue the difference, and the gross comes from PAYIN clearing. Balanced per currency. Keyed
 * `payin_credit:<order>`: an order is credited once, whatever calls this twice; answers whether this
 * call posted it.
 */
export async function postPayinCredit(
  ex: Executor,
  credit: { merchantId: string; orderId: string; currency: string; gross: Decimal; net: Decimal },
): Promise<boolean> {
  const { applied } = await postJournal(ex, {
    kind: 'payin_credit',
    orderId: credit.orderId,
    idempotencyKey: `payin_credit:${credit.orderId}`,
    entries: [
      {
        account: ACCOUNTS.merchant(credit.merchantId),
        merchantId: credit.merchantId,
        currency: credit.currency,
        amount: credit.net,
      },
      { account: ACCOUNTS.feeRevenue, currency: credit.currency, amount: credit.gross.minus(credit.net) },
      { account: ACCOUNTS.payinClearing, currency: credit.currency, amount: credit.gross.negated() },
    ],
  });
  return applied;
}

/** The table whose rows every posting rewrites (the running balances): vacuumed by the service (docs/decisions.md "The requisite claim under load"). */
export const balancesHotTable = getTableName(balances);

import type { Decimal } from 'decimal.js';
import type { Executor } from '../../db/database.js';
import { money } from '../../lib/money.js';
import { accountBalance, accountSumsByKind, postJournal } from '../ledger/index.js';
import { addHeldRub } from './holders-exposure.js';
import {
  commissionOf,
  HOLDER_ACCOUNTS,
  HOLDER_KINDS,
  type HolderBooks,
  holderBooks,
} from './holders-rules.js';

// Holders' postings in the ledger (docs/decisions.md "Holders' money"): each a balanced journal,
// written inside the caller's transaction, keyed once where an order or a settlement row names it.

/**
 * What a holder's card received for an order: the holder's account +amount, the received account
 * −amount; and the commission accrued: the holder's commission account +commission, the expense
 * account −commission. Keyed `holder_receipt:<order>` and `holder_commission:<order>` per account
 * (`ledger_entries_once_idx`): a second call for the order writes nothing. Answers whether it posted.
 */
export async function postHolderReceipt(
  ex: Executor,
  r: { holderId: string; orderId: string; currency: string; amount: Decimal; commissionPercent: Decimal },
): Promise<boolean> {
  const { applied } = await postJournal(ex, {
    kind: HOLDER_KINDS.receipt,
    orderId: r.orderId,
    idempotencyKey: `${HOLDER_KINDS.receipt}:${r.orderId}`,
    entries: [
      { account: HOLDER_ACCOUNTS.held(r.holderId), currency: r.currency, amount: r.amount },
      { account: HOLDER_ACCOUNTS.received, currency: r.currency, amount: r.amount.negated() },
    ],
  });
  if (applied) await addHeldRub(ex, r.holderId, r.currency, r.amount);
  const commission = commissionOf(r.amount, r.commissionPercent);
  if (applied && commission.gt(0)) {
    await postJournal(ex, {
      kind: HOLDER_KINDS.commission,
      orderId: r.orderId,
      idempotencyKey: `${HOLDER_KINDS.commission}:${r.orderId}`,
      entries: [
        { account: HOLDER_ACCOUNTS.commission(r.holderId), currency: r.currency, amount: commission },
        { account: HOLDER_ACCOUNTS.commissionExpense, currency: r.currency, amount: commission.negated() },
      ],
    });
  }
  return applied;
}

/**
 * A settlement (`amount` > 0 leaves the holder's account) or a correction (`amount` signed, added to
 * it), keyed by its settlement row. Answers the journal id.
 */
export async function postHolderMovement(
  ex: Executor,
  m: {
    holderId: string;
    rowId: string;
    kind: 'settlement' | 'correction';
    currency: string;
    amount: Decimal;
    memo: string;
  },
): Promise<string> {
  const kind = m.kind === 'settlement' ? HOLDER_KINDS.settlement : HOLDER_KINDS.correction;
  const onHolder = m.kind === 'settlement' ? m.amount.negated() : m.amount;
  const other = m.kind === 'settlement' ? HOLDER_ACCOUNTS.settled : HOLDER_ACCOUNTS.adjustments;
  const { journalId, applied } = await postJournal(ex, {
    kind,
    idempotencyKey: `${kind}:${m.rowId}`,
    memo: m.memo,
    entries: [
      { account: HOLDER_ACCOUNTS.held(m.holderId), currency: m.currency, amount: onHolder },
      { account: other, currency: m.currency, amount: onHolder.negated() },
    ],
  });
  if (applied) await addHeldRub(ex, m.holderId, m.currency, onHolder);
  return journalId;
}

/** A holder's figures in `currency`, every one a ledger sum. */
export async function booksOf(ex: Executor, holderId: string, currency: string): Promise<HolderBooks> {
  const byKind = await accountSumsByKind(ex, HOLDER_ACCOUNTS.held(holderId), currency);
  const commission = await accountBalance(ex, HOLDER_ACCOUNTS.commission(holderId), currency);
  return holderBooks(currency, byKind, commission);
}

/** What a holder holds in `currency` now: their account's balance. */
export async function heldBy(ex: Executor, holderId: string, currency: string): Promise<Decimal> {
  return money(await accountBalance(ex, HOLDER_ACCOUNTS.held(holderId), currency));
}

/**
 * Payouts through holders (docs/decisions.md "Payouts through holders"): a PAYOUT given to a holder
 * to send from their card, and the posting that reduces what they hold when it succeeds (P2P netting
 * of pay-ins against payouts). The order and its status stay the orders module's; the payouts rail
 * checks the order and calls these inside its transaction.
 */
import type { Decimal } from 'decimal.js';
import { desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { holderPayouts } from '../../db/tables/holders.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import { postJournal } from '../ledger/index.js';
import { addHeldRub } from './holders-exposure.js';
import { findHolder } from './holders-repository.js';
import { HOLDER_ACCOUNTS, HOLDER_KINDS } from './holders-rules.js';

/** The holder a payout was given to, or undefined. */
export async function holderOfPayout(ex: Executor, orderId: string): Promise<string | undefined> {
  const rows = await ex
    .select({ holderId: holderPayouts.holderId })
    .from(holderPayouts)
    .where(eq(holderPayouts.orderId, orderId));
  return rows[0]?.holderId;
}

/** The payouts given to holder `holderId` (any status): order id and when it was given, newest first. */
export async function payoutsOfHolder(
  ex: Executor,
  holderId: string,
): Promise<Array<{ orderId: string; assignedAt: Date }>> {
  return ex
    .select({ orderId: holderPayouts.orderId, assignedAt: holderPayouts.assignedAt })
    .from(holderPayouts)
    .where(eq(holderPayouts.holderId, holderId))
    .orderBy(desc(holderPayouts.assignedAt))
    .limit(500);
}

/**
 * Gives the pending payout `orderId` (checked by the caller, its amount `amount`) to the holder
 * `holderId`, or moves it to them from another holder, in the caller's transaction. NOT_FOUND for an
 * unknown holder; HOLDER_PAYOUTS_NOT_ALLOWED when the holder's `payouts_allowed` is off or they are
 * suspended. Audited `payout.assign_holder`.
 */
export async function assignPayout(
  ex: Executor,
  p: { orderId: string; holderId: string; currency: string; amount: Decimal; actor: AdminActor; now: Date },
): Promise<{ order_id: string; holder_id: string; amount: string; currency: string }> {
  const holder = /^[0-9a-f-]{36}$/i.test(p.holderId) ? await findHolder(ex, p.holderId, true) : undefined;
  if (!holder) throw new AppError('NOT_FOUND');
  if (!holder.payoutsAllowed || holder.status !== 'active')
    throw new AppError('HOLDER_PAYOUTS_NOT_ALLOWED', [
      {
        field: 'holder_id',
        problem: holder.payoutsAllowed ? 'the holder is suspended' : 'payouts are not allowed',
      },
    ]);
  const row = {
    orderId: p.orderId,
    holderId: p.holderId,
    currency: p.currency,
    amount: toDbAmount(p.amount),
    assignedBy: p.actor.name,
    assignedAt: p.now,
  };
  await ex
    .insert(holderPayouts)
    .values(row)
    .onConflictDoUpdate({
      target: holderPayouts.orderId,
      set: { holderId: sql`excluded.holder_id`, assignedBy: sql`excluded.assigned_by`, assignedAt: p.now },
    });
  await writeAudit(ex, p.actor, {
    action: 'payout.assign_holder',
    targetType: 'order',
    targetId: p.orderId,
    after: { holder_id: p.holderId },
  });
  return { order_id: p.orderId, holder_id: p.holderId, amount: p.amount.toFixed(), currency: p.currency };
}

/**
 * A succeeded payout given to a holder: their account −amount, `system:holders_paid_out` +amount,
 * keyed `holder_payout:<order>` (once, whatever calls it again). Answers the holder when it posted.
 */
export async function postHolderPayout(ex: Executor, orderId: string): Promise<string | undefined> {
  const row = (await ex.select().from(holderPayouts).where(eq(holderPayouts.orderId, orderId)))[0];
  if (!row) return undefined;
  const amount = money(row.amount);
  const { applied } = await postJournal(ex, {
    kind: HOLDER_KINDS.payout,
    orderId,
    idempotencyKey: `${HOLDER_KINDS.payout}:${orderId}`,
    memo: "payout sent from the holder's card",
    entries: [
      { account: HOLDER_ACCOUNTS.held(row.holderId), currency: row.currency, amount: amount.negated() },
      { account: HOLDER_ACCOUNTS.paidOut, currency: row.currency, amount },
    ],
  });
  if (!applied) return undefined;
  await addHeldRub(ex, row.holderId, row.currency, amount.negated());
  return row.holderId;
}

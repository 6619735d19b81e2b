/**
 * What the devices rail reads of the orders table (docs/architecture.md "What orders offers"): the
 * orders module's read-only export `ordersForReading`, in selects only; orders move through the
 * lifecycle.
 */
import type { Decimal } from 'decimal.js';
import { and, desc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { toDbAmount } from '../../lib/money.js';
import { type OrderRow, ordersForReading as orders } from '../../modules/orders/index.js';

/** What a bank notification names: an amount received on a requisite, in a currency. */
export interface CreditOnRequisite {
  requisiteId: string;
  currency: string;
  amount: Decimal;
}

const sameAmountOn = (c: CreditOnRequisite) =>
  and(
    eq(orders.requisiteId, c.requisiteId),
    eq(orders.method, 'fiat'),
    eq(orders.currency, c.currency),
    sql`${orders.payableAmount} = ${toDbAmount(c.amount)}::numeric`,
  );

/** An order a bank credit on its requisite might be for (docs/decisions.md section 24), as the credit decision reads it. */
export interface OrderForCredit {
  order: OrderRow;
  /** `expired` when the expiry sweeper ended it (a credit for it is a late payment). */
  status: 'pending' | 'expired';
}

/**
 * The fiat PAYIN orders on the requisite with exactly that payable amount that a credit may be for:
 * pending ones (whatever their deadline: the phone's receive time decides) and those expired since
 * `since`, pending ones locked FOR UPDATE. Answers oldest first.
 */
export async function ordersForCredit(
  ex: Executor,
  credit: CreditOnRequisite,
  since: Date,
): Promise<OrderForCredit[]> {
  const pending = await ex
    .select()
    .from(orders)
    .where(and(sameAmountOn(credit), eq(orders.status, 'pending')))
    .orderBy(orders.createdAt)
    .for('update');
  const expired = await ex
    .select()
    .from(orders)
    .where(
      and(
        sameAmountOn(credit),
        eq(orders.status, 'error'),
        eq(orders.statusReason, 'expired'),
        gt(orders.finishedAt, since),
      ),
    )
    .orderBy(orders.createdAt);
  return [
    ...pending.map((order) => ({ order, status: 'pending' as const })),
    ...expired.map((order) => ({ order, status: 'expired' as const })),
  ];
}

/** PAYIN orders on the requisites that expired after `since` (docs/decisions.md section 24: expired while a device was quiet). */
export async function expiredPayinsOn(ex: Executor, requisiteIds: string[], since: Date) {
  if (requisiteIds.length === 0) return [];
  return ex
    .select({ id: orders.id, requisiteId: orders.requisiteId, payableAmount: orders.payableAmount })
    .from(orders)
    .where(
      and(
        inArray(orders.requisiteId, requisiteIds),
        eq(orders.method, 'fiat'),
        eq(orders.status, 'error'),
        eq(orders.statusReason, 'expired'),
        gt(orders.finishedAt, since),
      ),
    );
}

/** Ids of fiat PAYIN orders on the requisites that succeeded after `since` (docs/decisions.md section 24: "alive but deaf"). */
export async function paidPayinsOn(ex: Executor, requisiteIds: string[], since: Date) {
  if (requisiteIds.length === 0) return [];
  return ex
    .select({ id: orders.id, requisiteId: orders.requisiteId })
    .from(orders)
    .where(
      and(
        inArray(orders.requisiteId, requisiteIds),
        eq(orders.method, 'fiat'),
        eq(orders.status, 'success'),
        gt(orders.finishedAt, since),
      ),
    );
}

/** An order a review item could be (the operators' one-click candidates). */
export interface CandidateOrder {
  id: string;
  /** The merchant's `order_id`. */
  externalId: string;
  requisiteId: string;
  payableAmount: string;
  status: 'pending' | 'success' | 'error';
  expiresAt: Date | null;
}

/**
 * Fiat PAYIN orders on any of `requisiteIds` whose payable amount is one of `amounts`, pending or
 * ended without success after `since`: what a message in review could pay (docs/decisions.md "Bank
 * messages: how they are read and when they credit"). At most 20, newest first.
 */
export async function candidateOrders(
  ex: Executor,
  requisiteIds: string[],
  amounts: string[],
  since: Date,
): Promise<CandidateOrder[]> {
  if (requisiteIds.length === 0 || amounts.length === 0) return [];
  const rows = await ex
    .select({
      id: orders.id,
      externalId: orders.externalId,
      requisiteId: orders.requisiteId,
      payableAmount: orders.payableAmount,
      status: orders.status,
      expiresAt: orders.expiresAt,
    })
    .from(orders)
    .where(
      and(
        inArray(orders.requisiteId, requisiteIds),
        eq(orders.method, 'fiat'),
        eq(orders.direction, 'PAYIN'),
        sql`${orders.payableAmount} IN (${sql.join(
          amounts.map((a) => sql`${a}::numeric`),
          sql`, `,
        )})`,
        or(eq(orders.status, 'pending'), and(eq(orders.status, 'error'), gt(orders.finishedAt, since))),
      ),
    )
    .orderBy(desc(orders.createdAt))
    .limit(20);
  return rows.map((r) => ({ ...r, requisiteId: r.requisiteId ?? '' }));
}

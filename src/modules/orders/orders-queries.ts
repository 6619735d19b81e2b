import type { Decimal } from 'decimal.js';
import { and, desc, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { toDbAmount } from '../../lib/money.js';
import type { OrderRow } from './order-view.js';
import type { OrderPatch } from './orders-repository.js';

/**
 * The reads and narrow writes other modules need of the orders table, through the orders module's
 * public interface (index.ts): no other module queries the table (docs/architecture.md).
 */

/** The latest crypto orders whose deposit address is `address` (case-insensitive), newest first. */
export async function cryptoOrdersAtAddress(ex: Executor, address: string, limit = 5) {
  return ex
    .select({
      id: orders.id,
      status: orders.status,
      finishedAt: orders.finishedAt,
      type: orders.type,
      address: orders.pdAddress,
    })
    .from(orders)
    .where(
      and(
        eq(orders.method, 'crypto'),
        eq(orders.test, false),
        sql`lower(${orders.pdAddress}) = lower(${address})`,
      ),
    )
    .orderBy(desc(orders.createdAt))
    .limit(limit);
}

/**
 * Deposit addresses a chain watcher looks at (docs/decisions.md section 25): crypto orders of `types` that are pending
 * or ended after `endedSince` (the late window), with their type.
 */
export async function cryptoAddressesToWatch(ex: Executor, types: readonly string[], endedSince: Date) {
  if (types.length === 0) return [];
  return ex
    .selectDistinct({ address: orders.pdAddress, type: orders.type })
    .from(orders)
    .where(
      and(
        eq(orders.method, 'crypto'),
        // Sandbox addresses are generated: no chain is watched for them.
        eq(orders.test, false),
        inArray(orders.type, [...types]),
        or(eq(orders.status, 'pending'), gt(orders.finishedAt, endedSince)),
      ),
    );
}

/** Pending crypto orders still without a quote (RUB mode without `cryptoAmount`, coin mode without the RUB figures). */
export async function cryptoOrdersAwaitingQuote(ex: Executor, limit: number): Promise<OrderRow[]> {
  return ex
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.method, 'crypto'),
        eq(orders.status, 'pending'),
        or(isNull(orders.cryptoAmount), isNull(orders.cryptoRate)),
      ),
    )
    .limit(limit);
}

/** A crypto order's quote: the coin amount and rate, the fee and what the merchant gets (text). */
export type CryptoQuoteColumns = Pick<
  OrderPatch,
  'cryptoAmount' | 'cryptoRate' | 'fee' | 'amountAfterFee' | 'usdtAmount' | 'usdtAmountAfterFee'
>;

/**
 * Fills the quote of a pending crypto order that has none yet (its rate was missing at creation);
 * answers whether it did. The only write of an order's fee outside the lifecycle, and only once.
 */
export async function setCryptoQuote(
  ex: Executor,
  id: string,
  quote: CryptoQuoteColumns,
  now: Date,
): Promise<boolean> {
  const rows = await ex
    .update(orders)
    .set({ ...quote, updatedAt: now })
    .where(and(eq(orders.id, id), eq(orders.status, 'pending'), isNull(orders.cryptoRate)))
    .returning({ id: orders.id });
  return rows.length > 0;
}

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

/**
 * The pending fiat orders on the requisite with exactly that payable amount and still within their
 * deadline, locked FOR UPDATE: one of them is the order a credit confirms (docs/decisions.md section 24).
 */
export async function pendingOrdersForCredit(
  ex: Executor,
  credit: CreditOnRequisite,
  now: Date,
): Promise<OrderRow[]> {
  return ex
    .select()
    .from(orders)
    .where(and(sameAmountOn(credit), eq(orders.status, 'pending'), gt(orders.expiresAt, now)))
    .for('update');
}

/**
 * The latest order on the requisite with that amount that a credit would have confirmed had it come
 * in time: expired since `since`, or still pending past its deadline. For operators (late payments).
 */
export async function lateOrderForCredit(ex: Executor, credit: CreditOnRequisite, since: Date, now: Date) {
  const rows = await ex
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        sameAmountOn(credit),
        sql`(${orders.status} = 'error' AND ${orders.statusReason} = 'expired' AND ${orders.finishedAt} > ${since.toISOString()}::timestamptz)
            OR (${orders.status} = 'pending' AND ${orders.expiresAt} <= ${now.toISOString()}::timestamptz)`,
      ),
    )
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return rows[0]?.id;
}

/** An operator takes a pending payout from the queue; answers whether it was one. */
export async function assignPayout(ex: Executor, id: string, operator: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(orders)
    .set({ assignedTo: operator, updatedAt: now })
    .where(and(eq(orders.id, id), eq(orders.method, 'payout'), eq(orders.status, 'pending')))
    .returning({ id: orders.id });
  return rows.length > 0;
}

/**
 * SQL true when a crypto order uses the deposit address `address` (a column or value of the
 * caller's query): pending, or ended after `since` (the address stays with its order for late
 * payments). For the TON pool's allocation (crypto module), which composes it into its query.
 */
export function depositAddressInUse(address: SQL, since: Date): SQL {
  return sql`EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.method} = 'crypto' AND ${orders.pdAddress} = ${address}
    AND (${orders.status} = 'pending' OR ${orders.finishedAt} > ${since.toISOString()}::timestamptz))`;
}

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

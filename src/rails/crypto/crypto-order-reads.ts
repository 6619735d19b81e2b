/**
 * What the crypto rail reads of the orders table (docs/architecture.md "What orders offers"): the
 * orders module's read-only export `ordersForReading`, in selects only; its writes are the orders
 * module's commands (`orderCommands`) and lifecycle.
 */
import { and, desc, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { type OrderRow, ordersForReading as orders } from '../../modules/orders/index.js';

/** The latest crypto orders whose deposit address is `address` (case-insensitive), newest first. */
export async function cryptoOrdersAtAddress(ex: Executor, address: string, limit = 5) {
  return ex
    .select({
      id: orders.id,
      status: orders.status,
      createdAt: orders.createdAt,
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

/**
 * SQL true when a crypto order uses the deposit address `address` (a column or value of the
 * caller's query): pending, or ended after `since` (the address stays with its order for late
 * payments). For the TON pool's allocation (deposit-addresses.ts), which composes it into its query.
 */
export function depositAddressInUse(address: SQL, since: Date): SQL {
  return sql`EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.method} = 'crypto' AND ${orders.pdAddress} = ${address}
    AND (${orders.status} = 'pending' OR ${orders.finishedAt} > ${since.toISOString()}::timestamptz))`;
}

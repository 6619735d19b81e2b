import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { can } from '../operators/index.js';
import { type OrderRow, orderInfo } from './order-view.js';

/**
 * Operator actions on an order need the role for its queue: payouts for a PAYOUT, orders otherwise
 * (docs/decisions.md section 20). System actors without a role act as admin. Throws FORBIDDEN.
 */
export function assertMayManage(actor: AdminActor, order: Pick<OrderRow, 'method'>): void {
  const needed = order.method === 'payout' ? 'payouts.manage' : 'orders.manage';
  if (actor.role && !can(actor.role, needed)) throw new AppError('FORBIDDEN');
}

/** An order as operators see it: everything the merchant sees plus fees, client signals and state reason. */
export function adminOrderView(order: OrderRow, nowMs: number, publicBaseUrl: string) {
  return {
    ...orderInfo(order, nowMs, publicBaseUrl, null),
    merchant_id: order.merchantId,
    requested_amount: order.amount,
    fee: order.fee,
    status_reason: order.statusReason,
    requisite_id: order.requisiteId,
    client_registered_at: order.clientRegisteredAt?.toISOString() ?? null,
    client_orders_count: order.clientOrdersCount,
    client_paid_count: order.clientPaidCount,
    paid_orders:
      order.clientPaidCount !== null && order.clientOrdersCount !== null
        ? `${order.clientPaidCount}/${order.clientOrdersCount}`
        : null,
    expires_at: order.expiresAt?.toISOString() ?? null,
    finished_at: order.finishedAt?.toISOString() ?? null,
    received_amount: order.receivedAmount === null ? null : money(order.receivedAmount).toFixed(),
    /** A sandbox order (docs/decisions.md section 29): shown marked, left out of live reports and queues. */
    test: order.test,
  };
}

export type AdminOrderView = ReturnType<typeof adminOrderView>;

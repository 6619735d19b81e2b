import { money, toJsonAmount } from '../../lib/money.js';
import type { OrderRow } from '../orders/order-view.js';

/** `created_at` of a webhook: UTC `YYYY-MM-DD HH:MM:SS.mmm` (decisions.md section 11). */
export function webhookTimestamp(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The success webhook body (merchant-api.md "Webhook body fields"; decisions.md sections 10-11):
 * keys in the order `id, order_id, type, amount, currency, status, created_at, amountAfterFee,
 * usdtAmount, usdtAmountAfterFee, exchangeRate, cryptoAmount` (+ `direction` for payouts), absent
 * ones left out. `amount` is the gross amount paid, an integer as a string; USDT fields only with
 * `convertToUsdt` for fiat methods. Returns the compact JSON text that is sent and signed.
 */
export function webhookBody(order: OrderRow): string {
  const body: Record<string, unknown> = {
    id: order.id,
    order_id: order.externalId,
    type: order.type,
    amount: money(order.payableAmount).toFixed(0),
    currency: order.currency,
    status: 'success',
    created_at: webhookTimestamp(order.createdAt),
    amountAfterFee: toJsonAmount(order.amountAfterFee),
  };
  if (order.convertToUsdt) {
    if (order.usdtAmount !== null) body.usdtAmount = toJsonAmount(order.usdtAmount);
    if (order.usdtAmountAfterFee !== null) body.usdtAmountAfterFee = toJsonAmount(order.usdtAmountAfterFee);
    if (order.exchangeRate !== null) body.exchangeRate = money(order.exchangeRate).toNumber();
  }
  if (order.direction === 'PAYOUT') body.direction = 'PAYOUT';
  return JSON.stringify(body);
}

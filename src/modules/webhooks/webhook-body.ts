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
  if (order.method === 'crypto') return cryptoWebhookBody(order);
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

/**
 * The webhook of a crypto PAYIN (merchant-api.md webhook table): `amount` is the request amount in
 * the request currency; `amountAfterFee` the RUB credited (or the RUB equivalent for a USDT-settled
 * merchant); `usdtAmount` only for `usdt_trc20` and `ton`, equal to the crypto amount paid;
 * `usdtAmountAfterFee` only when USDT was credited; no `exchangeRate`; `cryptoAmount` = the exact
 * amount paid, 8 decimals.
 */
function cryptoWebhookBody(order: OrderRow): string {
  const paid = money(order.receivedAmount ?? order.cryptoAmount ?? 0);
  const creditedUsdt = order.creditedCurrency === 'USDT';
  const body: Record<string, unknown> = {
    id: order.id,
    order_id: order.externalId,
    type: order.type,
    amount: money(order.amount).toFixed(),
    currency: order.currency,
    status: 'success',
    created_at: webhookTimestamp(order.createdAt),
    // Fixed to the credited amount on success (decisions.md section 6).
    amountAfterFee: toJsonAmount(order.amountAfterFee),
  };
  if (order.type === 'usdt_trc20' || order.type === 'ton') body.usdtAmount = paid.toNumber();
  if (creditedUsdt && order.creditedAmount !== null)
    body.usdtAmountAfterFee = money(order.creditedAmount).toNumber();
  body.cryptoAmount = paid.toFixed(8);
  return JSON.stringify(body);
}

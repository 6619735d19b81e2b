import { type Static, Type } from '@sinclair/typebox';
import { money, toJsonAmount } from '../../lib/money.js';
import type { OrderRow } from '../../modules/orders/index.js';

/**
 * The success webhook body (docs/api.md "Webhook body fields"; docs/decisions.md sections 10-11), the
 * one definition of it: the bodies below are built as its type, serialised with its keys in its
 * order, and the OpenAPI document shows it. Keys in this order, absent ones left out.
 */
export const WebhookBodySchema = Type.Object(
  {
    id: Type.String({ description: 'internal_id (lux...)' }),
    order_id: Type.String({ description: 'external_id: your order_id, or the internal id' }),
    type: Type.String(),
    amount: Type.String({
      description:
        'Fiat and payouts: the gross amount paid, an integer as a string; crypto: the request amount',
    }),
    currency: Type.String({
      description:
        "The unit of `amount`: the order currency (fiat, payouts) or the crypto request's (RUB or the coin)",
    }),
    status: Type.Literal('success'),
    created_at: Type.String({ description: 'UTC YYYY-MM-DD HH:MM:SS.mmm' }),
    amountAfterFee: Type.Number({
      description:
        "What was credited (debited for a payout), in fiat: the order's currency; a crypto order's always in RUB",
    }),
    usdtAmount: Type.Optional(Type.Number({ description: 'Fiat with convertToUsdt; usdt_trc20 and ton' })),
    usdtAmountAfterFee: Type.Optional(
      Type.Number({ description: 'Fiat with convertToUsdt; crypto when USDT was credited' }),
    ),
    exchangeRate: Type.Optional(Type.Number({ description: 'Fiat with convertToUsdt' })),
    cryptoAmount: Type.Optional(
      Type.String({ description: 'Crypto: the exact amount paid, in the coin of `type`, 8 decimals' }),
    ),
    direction: Type.Optional(Type.Literal('PAYOUT', { description: 'Payouts only' })),
  },
  { title: 'WebhookBody' },
);

export type WebhookBody = Static<typeof WebhookBodySchema>;

/** The keys in the contract order: what `JSON.stringify` writes, in this order. */
const BODY_KEYS = Object.keys(WebhookBodySchema.properties);

/** The compact JSON text of a body that is sent and signed, its keys in the schema's order. */
function serialise(body: WebhookBody): string {
  return JSON.stringify(body, BODY_KEYS);
}

/** `created_at` of a webhook: UTC `YYYY-MM-DD HH:MM:SS.mmm` (docs/decisions.md section 11). */
export function webhookTimestamp(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The success webhook body of an order (WebhookBodySchema): `amount` is the gross amount paid, an
 * integer as a string; USDT fields only with `convertToUsdt` for fiat methods; `direction` only for
 * payouts. Returns the compact JSON text that is sent and signed.
 */
export function webhookBody(order: OrderRow): string {
  if (order.method === 'crypto') return cryptoWebhookBody(order);
  const body: WebhookBody = {
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
  return serialise(body);
}

/**
 * The webhook of a crypto PAYIN (docs/api.md webhook table): `amount` is the request amount in
 * the request currency; `amountAfterFee` the RUB credited (or the RUB equivalent for a USDT-settled
 * merchant); `usdtAmount` only for `usdt_trc20` and `ton`, equal to the crypto amount paid;
 * `usdtAmountAfterFee` only when USDT was credited; no `exchangeRate`; `cryptoAmount` = the exact
 * amount paid, 8 decimals.
 */
function cryptoWebhookBody(order: OrderRow): string {
  const paid = money(order.receivedAmount ?? order.cryptoAmount ?? 0);
  const creditedUsdt = order.creditedCurrency === 'USDT';
  const body: WebhookBody = {
    id: order.id,
    order_id: order.externalId,
    type: order.type,
    amount: money(order.amount).toFixed(),
    currency: order.currency,
    status: 'success',
    created_at: webhookTimestamp(order.createdAt),
    // Fixed to the credited amount on success (docs/decisions.md section 6).
    amountAfterFee: toJsonAmount(order.amountAfterFee),
  };
  if (order.type === 'usdt_trc20' || order.type === 'ton') body.usdtAmount = paid.toNumber();
  if (creditedUsdt && order.creditedAmount !== null)
    body.usdtAmountAfterFee = money(order.creditedAmount).toNumber();
  body.cryptoAmount = paid.toFixed(8);
  return serialise(body);
}

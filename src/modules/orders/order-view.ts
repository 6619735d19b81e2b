import type { orders } from '../../db/tables/orders.js';
import { money, toJsonAmount } from '../../lib/money.js';
import { FORM_TYPES } from '../catalog/index.js';

export type OrderRow = typeof orders.$inferSelect;

/**
 * The order columns a merchant's answer shows (createOrderAnswer, orderInfo), plus the owner and the
 * mode the lookup checks: what `GET /merchant/order/{id}` reads, and no more.
 */
export const ORDER_INFO_COLUMNS = [
  'id',
  'merchantId',
  'test',
  'externalId',
  'status',
  'direction',
  'method',
  'type',
  'currency',
  'amount',
  'payableAmount',
  'cryptoAmount',
  'usdtAmount',
  'usdtAmountAfterFee',
  'amountAfterFee',
  'exchangeRate',
  'feePercent',
  'convertToUsdt',
  'expiresAt',
  'createdAt',
  'pdAddress',
  'pdBank',
  'pdHolderName',
  'pdEmv',
  'successCallbackUrl',
  'comment',
  'clientId',
  'receiptStatus',
] as const satisfies ReadonlyArray<keyof OrderRow>;

/** An order as its merchant's answer needs it (ORDER_INFO_COLUMNS). */
export type OrderInfoRow = Pick<OrderRow, (typeof ORDER_INFO_COLUMNS)[number]>;

const num = (v: string | null): number | null => (v === null ? null : toJsonAmount(v));

/** Seconds until a pending order expires (never negative), or undefined for orders without a deadline. */
export function remainingSeconds(order: OrderInfoRow, nowMs: number): number | undefined {
  if (!order.expiresAt) return undefined;
  return Math.max(0, Math.ceil((order.expiresAt.getTime() - nowMs) / 1000));
}

/** `payment_details` of an order (docs/api.md "Order-creation response"). */
export function paymentDetails(order: OrderInfoRow, publicBaseUrl: string) {
  const common = {
    address: order.pdAddress,
    bank: order.pdBank,
    holder_name: order.pdHolderName,
    type: order.type,
  };
  if (order.method === 'crypto') {
    return {
      ...common,
      amount: money(order.amount).toFixed(),
      cryptoAmount: order.cryptoAmount === null ? null : money(order.cryptoAmount).toFixed(8),
    };
  }
  return {
    ...common,
    amount: money(order.payableAmount).toFixed(),
    ...(FORM_TYPES.includes(order.type) ? { form_url: `${publicBaseUrl}/form/${order.id}` } : {}),
    ...(order.pdEmv ? { emv: order.pdEmv } : {}),
  };
}

/**
 * The createOrder answer for a fiat PAYIN (docs/api.md "createOrder - fiat PAYIN" response;
 * docs/decisions.md section 2 adds `direction` and `remainingSeconds`). USDT fields are null unless
 * `convertToUsdt`.
 */
export function createOrderAnswer(order: OrderInfoRow, nowMs: number, publicBaseUrl: string) {
  const remaining = remainingSeconds(order, nowMs);
  if (order.method === 'crypto') return cryptoAnswer(order, remaining, publicBaseUrl);
  if (order.method === 'payout') return payoutAnswer(order, publicBaseUrl);
  return {
    ok: true as const,
    id: order.id,
    payment_id: order.externalId,
    status: order.status,
    direction: order.direction,
    usdtAmount: num(order.usdtAmount),
    usdtAmountAfterFee: num(order.usdtAmountAfterFee),
    amountAfterFee: toJsonAmount(order.amountAfterFee),
    exchangeRate: order.exchangeRate === null ? null : money(order.exchangeRate).toNumber(),
    currency: order.currency,
    ...(order.direction === 'PAYIN' && remaining !== undefined ? { remainingSeconds: remaining } : {}),
    payment_details: paymentDetails(order, publicBaseUrl),
  };
}

/**
 * The createOrder answer of a PAYOUT (docs/api.md "createOrder - PAYOUT"): `currency` RUB,
 * `amountAfterFee` = what is debited; never `usdtAmount`, `usdtAmountAfterFee`, `exchangeRate`.
 */
function payoutAnswer(order: OrderInfoRow, publicBaseUrl: string) {
  return {
    ok: true as const,
    id: order.id,
    payment_id: order.externalId,
    status: order.status,
    direction: order.direction,
    currency: order.currency,
    amountAfterFee: toJsonAmount(order.amountAfterFee),
    payment_details: paymentDetails(order, publicBaseUrl),
  };
}

/**
 * The createOrder answer of a crypto PAYIN (docs/api.md "createOrder - crypto PAYIN"): no
 * `exchangeRate`; USDT methods show the exact coin amount as `usdtAmount`.
 */
function cryptoAnswer(order: OrderInfoRow, remaining: number | undefined, publicBaseUrl: string) {
  const exact = (v: string | null) => (v === null ? null : money(v).toNumber());
  const usdtCoin = order.pdBank === 'USDT';
  return {
    ok: true as const,
    id: order.id,
    payment_id: order.externalId,
    status: order.status,
    direction: order.direction,
    usdtAmount: usdtCoin ? exact(order.usdtAmount) : num(order.usdtAmount),
    usdtAmountAfterFee: usdtCoin ? exact(order.usdtAmountAfterFee) : num(order.usdtAmountAfterFee),
    amountAfterFee: toJsonAmount(order.amountAfterFee),
    currency: order.currency,
    ...(remaining !== undefined ? { remainingSeconds: remaining } : {}),
    payment_details: paymentDetails(order, publicBaseUrl),
  };
}

/**
 * `GET /merchant/order/{id}` payload (docs/decisions.md section 12): the createOrder answer plus type,
 * direction, created_at (ISO 8601 UTC), success_callback_url, merchantFeePercent, convertToUsdt,
 * comment, client_id, remainingSeconds while pending, and the receipt status.
 */
export function orderInfo(
  order: OrderInfoRow,
  nowMs: number,
  publicBaseUrl: string,
  receiptStatus: string | null,
) {
  const { ok: _ok, ...answer } = createOrderAnswer(order, nowMs, publicBaseUrl);
  if ('remainingSeconds' in answer) delete answer.remainingSeconds;
  const remaining = order.status === 'pending' ? remainingSeconds(order, nowMs) : undefined;
  return {
    ...answer,
    order_id: order.externalId,
    type: order.type,
    amount: money(order.amount).toNumber(),
    created_at: order.createdAt.toISOString(),
    success_callback_url: order.successCallbackUrl,
    merchantFeePercent: money(order.feePercent).toNumber(),
    convertToUsdt: order.convertToUsdt,
    comment: order.comment,
    client_id: order.clientId,
    ...(remaining !== undefined ? { remainingSeconds: remaining } : {}),
    receiptStatus,
  };
}

export type OrderInfo = ReturnType<typeof orderInfo>;

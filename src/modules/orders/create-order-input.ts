import type { Static } from '@sinclair/typebox';
import { AppError } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { CRYPTO_TYPES, FIAT_CURRENCIES, FIAT_TYPES } from '../catalog/index.js';
import type { MerchantRow } from '../merchants/index.js';
import type { CreateOrderBodySchema } from './orders-schemas.js';

/**
 * The createOrder body as the route schema lets it through (orders-schemas.ts): the fields whose
 * wrong values have their own codes stay loose there and are parsed by create-order-command.ts.
 */
export type CreateOrderBody = Static<typeof CreateOrderBodySchema>;

/** Largest order amount we take, in currency units: far above any real order, far below float limits. */
export const MAX_ORDER_AMOUNT = 1_000_000_000_000;

/** Anti-fraud and reference fields: an invalid value is dropped, the order is still created (docs/api.md). */
export interface ClientFields {
  clientId: string | null;
  clientRegisteredAt: Date | null;
  clientOrdersCount: number | null;
  clientPaidCount: number | null;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2_147_483_647
    ? value
    : null;
}

/** Client fields with invalid values ignored (docs/api.md fiat PAYIN request table). */
export function clientFields(body: CreateOrderBody): ClientFields {
  let registered: Date | null = null;
  const text = typeof body.client_registered_at === 'string' ? body.client_registered_at.trim() : '';
  if (ISO_8601.test(text)) {
    const ms = Date.parse(text);
    // A real calendar date (Date.parse rolls 2024-02-30 over to March) within a sane range.
    const [y, m, d] = text.slice(0, 10).split('-').map(Number);
    const sameDay =
      new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1)).toISOString().slice(0, 10) === text.slice(0, 10);
    if (Number.isFinite(ms) && sameDay && ms >= Date.UTC(1900, 0, 1) && ms <= Date.now() + 86_400_000) {
      registered = new Date(ms);
    }
  }
  return {
    clientId: typeof body.client_id === 'string' && body.client_id.length > 0 ? body.client_id : null,
    clientRegisteredAt: registered,
    clientOrdersCount: countOrNull(body.client_orders_count),
    clientPaidCount: countOrNull(body.client_paid_count),
  };
}

/**
 * A fiat or payout amount: a positive integer (docs/decisions.md section 3 INVALID_AMOUNT).
 * JSON `1000.0` parses as 1000 and is taken; strings are not amounts.
 */
export function integerAmount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > MAX_ORDER_AMOUNT) {
    throw new AppError('INVALID_AMOUNT');
  }
  return value;
}

/** Which creation mode a request selects (docs/api.md: `direction`, then a crypto `type`). */
export type OrderMode = 'fiat' | 'crypto' | 'payout';

export function orderMode(body: CreateOrderBody): OrderMode {
  if (body.direction === 'PAYOUT') return 'payout';
  return typeof body.type === 'string' && CRYPTO_TYPES.includes(body.type) ? 'crypto' : 'fiat';
}

/**
 * The fiat PAYIN type: known (else UNSUPPORTED_PAYMENT_TYPE) and enabled for the merchant
 * (else 403 PAYMENT_TYPE_NOT_ALLOWED).
 */
export function fiatType(value: unknown, merchant: MerchantRow): string {
  if (typeof value !== 'string' || !FIAT_TYPES.includes(value))
    throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  if (!merchant.paymentTypes.includes(value)) throw new AppError('PAYMENT_TYPE_NOT_ALLOWED');
  return value;
}

/** The fiat currency: default RUB; known and enabled for the merchant, else CURRENCY_NOT_ALLOWED. */
export function fiatCurrency(value: unknown, merchant: MerchantRow): string {
  const currency = value === undefined || value === null ? 'RUB' : value;
  if (
    typeof currency !== 'string' ||
    !FIAT_CURRENCIES.includes(currency) ||
    !merchant.currencies.includes(currency)
  ) {
    throw new AppError('CURRENCY_NOT_ALLOWED');
  }
  return currency;
}

/** Checks the merchant's min/max for the type (ORDER_AMOUNT_BELOW_MIN_LIMIT / _ABOVE_MAX_LIMIT). */
export function checkLimits(merchant: MerchantRow, limitKey: string, amount: number | string): void {
  const limit = Object.hasOwn(merchant.limits, limitKey) ? merchant.limits[limitKey] : undefined;
  if (!limit) return;
  const value = money(amount);
  if (limit.min !== undefined && value.lt(limit.min)) throw new AppError('ORDER_AMOUNT_BELOW_MIN_LIMIT');
  if (limit.max !== undefined && value.gt(limit.max)) throw new AppError('ORDER_AMOUNT_ABOVE_MAX_LIMIT');
}

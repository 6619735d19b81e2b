import type { Decimal } from 'decimal.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { type Allowlist, publicUrl } from '../../platform/outbound/index.js';
import {
  type CryptoMethod,
  cryptoMethod,
  cryptoRequestCurrency,
  PAYOUT_TYPES,
  type PayoutDetails,
  parseCryptoAmount,
  payoutDetailsShape,
  type RequisiteNeed,
  requisiteNeedFor,
} from '../catalog/index.js';
import type { MerchantRow } from '../merchants/index.js';
import {
  type ClientFields,
  type CreateOrderBody,
  checkLimits,
  clientFields,
  fiatCurrency,
  fiatType,
  integerAmount,
  orderMode,
} from './create-order-input.js';
import { type Deviation, resolveDeviation } from './orders-rules.js';

/** What every mode of createOrder carries besides its own fields. */
interface CommandBase {
  /** The merchant's `order_id`, or null (the internal id is then the external id). */
  orderId: string | null;
  successCallbackUrl: string | null;
  /** The payment form's "back to the shop" link (docs/decisions.md section 31), validated like the callback URL. */
  returnUrl: string | null;
  client: ClientFields;
  comment: string | null;
}

/** A fiat PAYIN, parsed (docs/api.md "createOrder - fiat PAYIN"). */
export interface FiatPayinCommand extends CommandBase {
  mode: 'fiat';
  type: string;
  /** The requested amount; undefined for a pool offer taken without one (the offer's is used). */
  amount: number | undefined;
  currency: string;
  need: RequisiteNeed;
  convertToUsdt: boolean;
  /** The disambiguation window (RUB only), the request's values over the merchant's defaults. */
  deviation: Deviation | undefined;
  /** `usePool`: the offer to take (docs/decisions.md section 23). */
  offerId: string | undefined;
}

/** A crypto PAYIN, parsed (docs/api.md "createOrder - crypto PAYIN"). */
export interface CryptoPayinCommand extends CommandBase {
  mode: 'crypto';
  type: string;
  method: CryptoMethod;
  amount: Decimal;
  /** `RUB` or the method's coin. */
  requestCurrency: string;
}

/** A PAYOUT, parsed (docs/api.md "createOrder - PAYOUT"); the bank is checked by the service. */
export interface PayoutCommand extends CommandBase {
  mode: 'payout';
  type: string;
  amount: number;
  details: PayoutDetails;
}

export type CreateOrderCommand = FiatPayinCommand | CryptoPayinCommand | PayoutCommand;

/** What parsing needs besides the body and the merchant. */
export interface ParseContext {
  /** MAX_AMOUNT_DEVIATION, rubles. */
  maxAmountDeviation: number;
  /** OUTBOUND_ALLOWLIST (callback URLs). */
  outboundAllowlist: Allowlist;
}

/**
 * Parses a createOrder body, once, at the route, into the command of its mode, with the codes of
 * docs/decisions.md section 3 in the order merchants see them: the type (UNSUPPORTED_PAYMENT_TYPE,
 * PAYMENT_TYPE_NOT_ALLOWED), the amount (INVALID_AMOUNT), the currency (CURRENCY_NOT_ALLOWED), the
 * merchant's limits where they need no rate, then the fields that are VALIDATION_ERROR. What needs
 * the database (rates, the bank list, a taken order_id) the services check. Invalid `client_*`
 * values are ignored, as the contract asks.
 */
export function parseCreateOrder(
  body: CreateOrderBody,
  merchant: MerchantRow,
  ctx: ParseContext,
): CreateOrderCommand {
  if (body.amount === undefined && body.usePool !== true) throw invalidField('amount', 'is required');
  const mode = orderMode(body);
  if (mode === 'crypto') return parseCrypto(body, merchant, ctx);
  if (mode === 'payout') return parsePayout(body, merchant, ctx);
  return parseFiat(body, merchant, ctx);
}

function base(body: CreateOrderBody, ctx: ParseContext): Omit<CommandBase, 'client'> {
  return {
    orderId: typeof body.order_id === 'string' ? body.order_id : null,
    // A webhook we connect to and a page the payer's browser opens: public http(s) URLs (docs/decisions.md section 17).
    successCallbackUrl: publicUrl(body.success_callback_url, ctx.outboundAllowlist, 'success_callback_url'),
    returnUrl: publicUrl(body.return_url, ctx.outboundAllowlist, 'return_url'),
    comment: body.comment ?? null,
  };
}

function parseFiat(body: CreateOrderBody, merchant: MerchantRow, ctx: ParseContext): FiatPayinCommand {
  const type = fiatType(body.type, merchant);
  const usePool = body.usePool === true;
  if (usePool && (typeof body.requisiteId !== 'string' || !body.requisiteId)) {
    throw invalidField('requisiteId', 'is required with usePool');
  }
  // A pool order's amount is the offer's; a stated amount is checked for shape only.
  const amount = usePool && body.amount === undefined ? undefined : integerAmount(body.amount);
  const currency = fiatCurrency(body.currency, merchant);
  checkLimits(merchant, type, amount ?? 1);
  const need = requisiteNeedFor(type);
  if (!need) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  const convertToUsdt = body.convertToUsdt === true;
  if (convertToUsdt && !merchant.allowUsdt) throw new AppError('USDT_CONVERSION_NOT_ALLOWED');
  const common = base(body, ctx);
  for (const field of ['amountUp', 'amountDown'] as const) {
    const value = body[field];
    if (typeof value === 'number' && value > ctx.maxAmountDeviation)
      throw invalidField(field, `must be at most ${ctx.maxAmountDeviation}`);
  }
  const deviation = resolveDeviation(
    { amountUp: body.amountUp ?? undefined, amountDown: body.amountDown ?? undefined },
    { up: merchant.defaultAmountUp, down: merchant.defaultAmountDown },
    currency,
    'PAYIN',
  );
  return {
    mode: 'fiat',
    ...common,
    client: clientFields(body),
    type,
    amount,
    currency,
    need,
    convertToUsdt,
    deviation,
    offerId: usePool ? String(body.requisiteId) : undefined,
  };
}

function parseCrypto(body: CreateOrderBody, merchant: MerchantRow, ctx: ParseContext): CryptoPayinCommand {
  const type = String(body.type);
  const method = cryptoMethod(type);
  if (!method) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  if (!merchant.paymentTypes.includes(type)) throw new AppError('PAYMENT_TYPE_NOT_ALLOWED');
  if (body.convertToUsdt === true && type === 'ton') throw new AppError('USDT_CONVERSION_NOT_SUPPORTED');
  const amount = parseCryptoAmount(body.amount);
  if (!amount) throw new AppError('INVALID_AMOUNT');
  const requestCurrency = cryptoRequestCurrency(type, body.currency);
  if (!requestCurrency) throw new AppError('CURRENCY_NOT_ALLOWED');
  const common = base(body, ctx);
  const client = clientFields(body);
  // A crypto order keeps only the client id (docs/api.md crypto request table).
  return {
    mode: 'crypto',
    ...common,
    client: { ...client, clientRegisteredAt: null, clientOrdersCount: null, clientPaidCount: null },
    type,
    method,
    amount,
    requestCurrency,
  };
}

/** Merchant-settings key of payout min/max limits. */
export const PAYOUT_LIMITS_KEY = 'payout';

function parsePayout(body: CreateOrderBody, merchant: MerchantRow, ctx: ParseContext): PayoutCommand {
  const type = body.type;
  if (typeof type !== 'string' || !PAYOUT_TYPES.includes(type))
    throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  if (!merchant.paymentTypes.includes(type)) throw new AppError('PAYMENT_TYPE_NOT_ALLOWED');
  const amount = integerAmount(body.amount);
  if (body.currency !== undefined && body.currency !== null && body.currency !== 'RUB') {
    throw new AppError('CURRENCY_NOT_ALLOWED');
  }
  const details = payoutDetailsShape(body.payout_details, type);
  checkLimits(merchant, PAYOUT_LIMITS_KEY, amount);
  const common = base(body, ctx);
  const client = clientFields(body);
  return {
    mode: 'payout',
    ...common,
    client: { ...client, clientRegisteredAt: null, clientOrdersCount: null, clientPaidCount: null },
    type,
    amount,
    details,
  };
}

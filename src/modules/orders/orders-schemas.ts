import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/**
 * createOrder body. Fields whose wrong values have their own codes (amount, type, currency,
 * merchant_id, client_*) are loose here and checked by the service; the rest fail VALIDATION_ERROR.
 */
export const CreateOrderBodySchema = Type.Object(
  {
    amount: Type.Optional(
      Type.Unknown({
        description:
          'Integer for fiat and payouts; a positive number for crypto; taken from the offer with usePool',
      }),
    ),
    type: Type.Unknown({ description: 'Payment method, e.g. card, sim, sbp_pdf, usdt_trc20' }),
    merchant_id: Type.Optional(Type.Unknown({ description: 'Your merchant id (must match the API key)' })),
    order_id: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 128,
          pattern: '^[\\x21-\\x7e\\u00a0-\\uffff][\\x20-\\x7e\\u00a0-\\uffff]*$',
        }),
      ),
    ),
    direction: Type.Optional(Type.Union([Type.Literal('PAYIN'), Type.Literal('PAYOUT')])),
    success_callback_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    return_url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          description:
            'Extension: where the payment form\'s "back to the shop" button leads; a public http(s) URL',
        }),
      ),
    ),
    client_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    client_registered_at: Type.Optional(Type.Unknown()),
    client_orders_count: Type.Optional(Type.Unknown()),
    client_paid_count: Type.Optional(Type.Unknown()),
    currency: Type.Optional(Type.Unknown()),
    convertToUsdt: Type.Optional(Nullable(Type.Boolean())),
    amountUp: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }))),
    amountDown: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }))),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    payout_details: Type.Optional(Type.Unknown()),
    usePool: Type.Optional(Nullable(Type.Boolean({ description: 'Take the pool offer requisiteId' }))),
    requisiteId: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: 'id of GET /merchant/pool/requisites' })),
    ),
  },
  { additionalProperties: true },
);

export const PaymentDetailsSchema = Type.Object({
  address: Type.String({
    description: 'Card number or phone (fiat), deposit address (crypto), account (payout)',
  }),
  bank: Type.String({ description: 'Bank name (fiat, payout) or the coin (crypto)' }),
  holder_name: Type.String({ description: 'Holder (fiat, payout) or the network (crypto)' }),
  type: Type.String(),
  amount: Type.String({
    description:
      "In the order's `currency`: fiat, the exact amount to pay; crypto, the request's amount (rubles or the coin, as `currency` says); payout, the gross amount",
  }),
  cryptoAmount: Type.Optional(
    Nullable(
      Type.String({
        description:
          'In the coin of `type` (the one `bank` names): the exact amount to send; null until a rate is known',
      }),
    ),
  ),
  form_url: Type.Optional(Type.String()),
  emv: Type.Optional(Type.String()),
});

const orderStatus = Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('error')]);

const answerFields = {
  id: Type.String({ description: 'internal_id (lux...)' }),
  payment_id: Type.String({ description: 'external_id: your order_id, or the internal id' }),
  status: orderStatus,
  direction: Type.Union([Type.Literal('PAYIN'), Type.Literal('PAYOUT')]),
  usdtAmount: Type.Optional(
    Nullable(
      Type.Number({
        description:
          'In USDT, before the fee: a convertToUsdt order at exchangeRate; a crypto order, its USDT equivalent when known',
      }),
    ),
  ),
  usdtAmountAfterFee: Type.Optional(
    Nullable(Type.Number({ description: 'In USDT, after the fee: what a convertToUsdt order credits' })),
  ),
  amountAfterFee: Type.Number({
    description:
      "What the merchant is credited after the fee (a payout: debited), in fiat: the order's `currency` for fiat orders and payouts; for a crypto PAYIN always rubles (RUB), even when `currency` names the coin",
  }),
  exchangeRate: Type.Optional(
    Nullable(Type.Number({ description: "Units of the order's fiat `currency` per 1 USDT (convertToUsdt)" })),
  ),
  currency: Type.String({
    description:
      "Fiat orders and payouts: the order currency (RUB, KGS, KZT, UZS), the unit of `amount` and `amountAfterFee`. Crypto PAYIN: the unit of the request's `amount` (RUB or the coin); `amountAfterFee` stays in RUB and `payment_details.cryptoAmount` is in the coin",
  }),
  remainingSeconds: Type.Optional(Type.Integer()),
  payment_details: PaymentDetailsSchema,
};

export const CreateOrderResponseSchema = Type.Object({ ok: Type.Literal(true), ...answerFields });

export const orderInfoFields = {
  ...answerFields,
  order_id: Type.String(),
  type: Type.String(),
  amount: Type.Number({ description: 'Requested amount, in `currency`' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  success_callback_url: Nullable(Type.String()),
  merchantFeePercent: Type.Number(),
  convertToUsdt: Type.Boolean(),
  comment: Nullable(Type.String()),
  client_id: Nullable(Type.String()),
  receiptStatus: Nullable(Type.String({ description: 'under_review, accepted, rejected, or null' })),
};

export const OrderInfoSchema = Type.Object(orderInfoFields);

export const OrderResponseSchema = Type.Object({
  success: Type.Literal(true),
  ok: Type.Literal(true),
  data: OrderInfoSchema,
  ...orderInfoFields,
});

export const OrdersQuerySchema = Type.Object({
  merchant_id: Type.Optional(Type.String()),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  type: Type.Optional(Type.String({ maxLength: 32 })),
  order_status: Type.Optional(orderStatus),
  direction: Type.Optional(Type.Union([Type.Literal('PAYIN'), Type.Literal('PAYOUT')])),
  start_date: Type.Optional(
    Type.String({ description: 'UTC, YYYY-MM-DD HH:MM:SS; default the start of today' }),
  ),
  end_date: Type.Optional(Type.String({ description: 'UTC, YYYY-MM-DD HH:MM:SS; default the end of today' })),
});

const ordersPage = {
  total: Type.Integer(),
  page: Type.Integer(),
  size: Type.Integer(),
  orders: Type.Array(OrderInfoSchema),
};

export const OrdersResponseSchema = Type.Object({
  success: Type.Literal(true),
  ok: Type.Literal(true),
  data: Type.Object(ordersPage),
  ...ordersPage,
});

export const OrderIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

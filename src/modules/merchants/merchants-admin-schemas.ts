import { Type } from '@sinclair/typebox';

// Answers of the operators' merchant routes (merchants-admin-routes.ts), exactly as
// merchants-service.ts builds them (`merchantView`).

const Decimal = (description: string) => Type.String({ description: `${description}, a decimal string` });

const merchantFields = {
  merchant_id: Type.String(),
  enabled: Type.Boolean(),
  currencies: Type.Array(Type.String()),
  payment_types: Type.Array(Type.String()),
  payin_fee_percent: Decimal('PAYIN fee percent'),
  payin_fee_percent_by_type: Type.Record(Type.String(), Decimal('PAYIN fee percent of the type')),
  payout_fee_percent: Decimal('PAYOUT fee percent'),
  allow_usdt: Type.Boolean(),
  default_amount_up: Type.Integer(),
  default_amount_down: Type.Integer(),
  limits: Type.Record(
    Type.String(),
    Type.Object({ min: Type.Optional(Decimal('Minimum')), max: Type.Optional(Decimal('Maximum')) }),
    { description: 'Amount limits per payment type' },
  ),
  order_ttl_seconds: Type.Integer(),
  crypto_order_ttl_seconds: Type.Integer(),
  payin_rate_limit: Type.Integer({ description: 'createOrder PAYIN requests per second' }),
  settlement: Type.Union([Type.Literal('fiat'), Type.Literal('usdt')]),
  rate_markup_percent: Type.Union([Decimal('Crypto PAYIN rate markup percent'), Type.Null()], {
    description: 'null: the service default RATE_MARKUP_PAYIN_PERCENT',
  }),
  display_name: Type.Union([Type.String(), Type.Null()], {
    description: 'Shown to payers on the payment form',
  }),
  logo_url: Type.Union([Type.String(), Type.Null()], {
    description: 'https URL of the logo on the payment form',
  }),
  return_url: Type.Union([Type.String(), Type.Null()], {
    description: 'The form\'s "back to the shop" link when the order gives none',
  }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
};

/** A merchant and its settings as operators see them (never a key). */
export const MerchantSchema = Type.Object(merchantFields);

/** `POST /admin/merchants`: the merchant with its API key, shown once. */
export const MerchantCreatedSchema = Type.Object({
  ...merchantFields,
  api_key: Type.String({ description: 'Shown once' }),
});

/** `POST /admin/merchants/{merchant_id}/api-keys`: the new key, shown once. */

/** A rotation's answer: the new key (shown once) and until when the old one is still accepted. */
export const RotatedKeySchema = Type.Object({
  merchant_id: Type.String(),
  api_key: Type.String(),
  mode: Type.Union([Type.Literal('live'), Type.Literal('test')], {
    description: 'test: a sandbox key, its orders are test orders',
  }),
  previous_key_valid_until: Type.Union([Type.String(), Type.Null()], {
    description: 'ISO 8601; null: refused at once',
  }),
});

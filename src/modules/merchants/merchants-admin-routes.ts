import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { MerchantCreatedSchema, MerchantSchema, RotatedKeySchema } from './merchants-admin-schemas.js';
import type { MerchantsService } from './merchants-service.js';

const Percent = Type.Union([
  Type.Number({ minimum: 0, maximum: 99.9999 }),
  Type.String({ pattern: '^\\d{1,2}(\\.\\d{1,4})?$' }),
]);
const Amount = Type.Union([
  Type.Number({ minimum: 0 }),
  Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,8})?$' }),
]);

const settingsFields = {
  currencies: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
  payment_types: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  payin_fee_percent: Type.Optional(Percent),
  payin_fee_percent_by_type: Type.Optional(Type.Record(Type.String(), Percent)),
  payout_fee_percent: Type.Optional(Percent),
  allow_usdt: Type.Optional(Type.Boolean()),
  default_amount_up: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  default_amount_down: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limits: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Object(
        { min: Type.Optional(Amount), max: Type.Optional(Amount) },
        { additionalProperties: false },
      ),
    ),
  ),
  order_ttl_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 7 * 86_400 })),
  crypto_order_ttl_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 7 * 86_400 })),
  payin_rate_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  settlement: Type.Optional(Type.Union([Type.Literal('fiat'), Type.Literal('usdt')])),
  display_name: Type.Optional(
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'The name payers see on the payment form, up to 80 characters; null clears it',
    }),
  ),
  logo_url: Type.Optional(
    Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
      description: 'An https URL of the logo on the payment form; null clears it',
    }),
  ),
  return_url: Type.Optional(
    Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
      description: 'The form\'s "back to the shop" link when an order gives none; a public http(s) URL',
    }),
  ),
  rate_markup_percent: Type.Optional(
    Type.Union([Percent, Type.Null()], {
      description: 'Crypto PAYIN rate markup percent (below 50); null: RATE_MARKUP_PAYIN_PERCENT',
    }),
  ),
};

const MerchantIdParams = Type.Object({ merchant_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Admin API for merchants and their keys (docs/api.md "Admin API"). */
export function merchantsAdminRoutes(app: App, deps: { merchants: MerchantsService }) {
  const { merchants } = deps;

  app.post(
    '/admin/merchants',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a merchant; the answer shows its API key once',
        body: Type.Object(
          {
            merchant_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' }),
            ...settingsFields,
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(MerchantCreatedSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { merchant_id, ...settings } = request.body;
      return {
        success: true as const,
        data: await merchants.create(merchant_id, settings, actorOf(request)),
      };
    },
  );

  app.get(
    '/admin/merchants',
    {
      schema: { tags: ['admin'], response: { 200: Envelope(Type.Array(MerchantSchema)), ...errorResponses } },
    },
    async () => ({ success: true as const, data: await merchants.list() }),
  );

  app.get(
    '/admin/merchants/:merchant_id',
    {
      schema: {
        tags: ['admin'],
        params: MerchantIdParams,
        response: { 200: Envelope(MerchantSchema), ...errorResponses },
      },
    },
    async (request) => ({ success: true as const, data: await merchants.get(request.params.merchant_id) }),
  );

  app.patch(
    '/admin/merchants/:merchant_id',
    {
      schema: {
        tags: ['admin'],
        params: MerchantIdParams,
        body: Type.Object(
          { ...settingsFields, enabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(MerchantSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await merchants.update(request.params.merchant_id, request.body, actorOf(request)),
    }),
  );

  app.post(
    '/admin/merchants/:merchant_id/api-keys',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Rotate the API key (mode test: the sandbox key, issued on first call): the old key stops at once, or after grace_seconds (at most 7 days)',
        params: MerchantIdParams,
        body: Type.Optional(
          Type.Object({
            grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604800 })),
            mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
          }),
        ),
        response: { 200: Envelope(RotatedKeySchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await merchants.rotateKey(
        request.params.merchant_id,
        actorOf(request),
        request.body?.grace_seconds ?? 0,
        request.body?.mode ?? 'live',
      ),
    }),
  );
}

import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { RateHistorySchema, RatePairSchema, RateSchema } from './rates-admin-schemas.js';
import { MAX_TTL_SECONDS, type RatesService } from './rates-service.js';

/** Admin API for exchange rates (docs/decisions.md section 6, docs/api.md "Exchange rates"). */
export function ratesAdminRoutes(app: App, deps: { rates: RatesService }) {
  app.put(
    '/admin/rates',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set a rate: units of quote per one base (USDT/RUB "92.5"); it wins until it expires',
        body: Type.Object({
          base: Type.String({ maxLength: 8 }),
          quote: Type.String({ maxLength: 8 }),
          rate: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String({ maxLength: 32 })]),
          ttl_seconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: MAX_TTL_SECONDS,
              description: 'Seconds it wins over the sources; absent: RATE_MAX_AGE',
            }),
          ),
          reason: Type.Optional(
            Type.String({
              maxLength: 500,
              description:
                "Required (and only an admin may) when the rate is more than RATE_OPERATOR_MAX_DEVIATION percent from the fresh sources' median; audited",
            }),
          ),
        }),
        response: { 200: Envelope(RateSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.rates.set(request.body, actorOf(request)),
    }),
  );

  app.get(
    '/admin/rates',
    {
      schema: {
        tags: ['admin'],
        summary: 'Every pair: effective rate, sources with ages, stale flag, override expiry',
        response: { 200: Envelope(Type.Array(RatePairSchema)), ...errorResponses },
      },
    },
    async () => ({ success: true as const, data: await deps.rates.list() }),
  );

  app.get(
    '/admin/rates/history',
    {
      schema: {
        tags: ['admin'],
        summary: "A pair's effective rate changes with their sources, newest first",
        querystring: Type.Object({
          base: Type.String({ maxLength: 8 }),
          quote: Type.String({ maxLength: 8 }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          before_id: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
        response: { 200: Envelope(Type.Array(RateHistorySchema)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.rates.history({ ...request.query, limit: request.query.limit ?? 100 }),
    }),
  );
}

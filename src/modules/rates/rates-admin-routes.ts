import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { RateSchema } from './rates-admin-schemas.js';
import type { RatesService } from './rates-service.js';

/** Admin API for exchange rates (docs/decisions.md section 6). */
export function ratesAdminRoutes(app: App, deps: { rates: RatesService }) {
  app.put(
    '/admin/rates',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set a rate: units of quote per one base (USDT/RUB "92.5")',
        body: Type.Object({
          base: Type.String({ maxLength: 8 }),
          quote: Type.String({ maxLength: 8 }),
          rate: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String({ maxLength: 32 })]),
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
    { schema: { tags: ['admin'], response: { 200: Envelope(Type.Array(RateSchema)), ...errorResponses } } },
    async () => ({ success: true as const, data: await deps.rates.list() }),
  );
}

import { Type } from '@sinclair/typebox';

/** A rate as `PUT /admin/rates` and `GET /admin/rates` answer it (rates-service.ts `set`, `list`). */
export const RateSchema = Type.Object({
  base: Type.String(),
  quote: Type.String(),
  rate: Type.String({ description: 'Units of quote per one base, a decimal string' }),
  source: Type.String({ description: 'operator or provider' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
  fresh: Type.Optional(Type.Boolean({ description: 'List only: younger than the maximum age' })),
});

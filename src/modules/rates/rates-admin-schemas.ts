import { Type } from '@sinclair/typebox';

const Iso = (description: string) => Type.String({ description: `${description}, ISO 8601 UTC` });

/** `PUT /admin/rates`: the operator's rate as stored (rates-service.ts `set`). */
export const RateSchema = Type.Object({
  base: Type.String(),
  quote: Type.String(),
  rate: Type.String({ description: 'Units of quote per one base, a decimal string' }),
  source: Type.String({ description: 'operator' }),
  updated_at: Iso('When it was set'),
  expires_at: Iso('Until when it wins over the sources (ttl_seconds, else RATE_MAX_AGE)'),
});

/** One pair of `GET /admin/rates` (rates-views.ts `pairView`). */
export const RatePairSchema = Type.Object({
  base: Type.String(),
  quote: Type.String(),
  rate: Type.Union([Type.String(), Type.Null()], {
    description: 'The effective rate (without markup), a decimal string; null when none is fresh',
  }),
  source: Type.Union([Type.Literal('operator'), Type.Literal('median'), Type.Literal('none')], {
    description: "operator: an operator's rate in force; median: of the fresh sources; none: stale",
  }),
  updated_at: Type.Union([Iso('The operator rate or the freshest source quote used'), Type.Null()]),
  fresh: Type.Boolean({ description: 'An effective rate exists' }),
  stale: Type.Boolean({ description: 'No effective rate: operators are alerted (console, metrics)' }),
  override: Type.Union([
    Type.Object({
      rate: Type.String(),
      updated_at: Iso('Set at'),
      expires_at: Iso('Wins until'),
      active: Type.Boolean({ description: 'Unexpired: the effective rate' }),
    }),
    Type.Null(),
  ]),
  sources: Type.Array(
    Type.Object({
      source: Type.String({ description: 'coingecko, rapira, cbr or provider' }),
      rate: Type.String(),
      fetched_at: Iso('When it was read'),
      age_seconds: Type.Integer(),
      fresh: Type.Boolean({ description: "Within the source's limit: counted in the median" }),
    }),
  ),
  freshest_source_age_seconds: Type.Union([Type.Integer(), Type.Null()]),
});

/** One row of `GET /admin/rates/history`. */
export const RateHistorySchema = Type.Object({
  id: Type.Integer({ description: 'Page on with before_id' }),
  base: Type.String(),
  quote: Type.String(),
  kind: Type.Union([Type.Literal('override'), Type.Literal('median'), Type.Literal('none')]),
  rate: Type.Union([Type.String(), Type.Null()], { description: 'The effective rate from then on' }),
  sources: Type.Array(
    Type.Object({ source: Type.String(), rate: Type.String(), at: Iso('When the source was read') }),
    { description: 'The fresh source quotes at that moment (the median is taken from them)' },
  ),
  expires_at: Type.Union([Iso('The override expiry'), Type.Null()]),
  actor: Type.Union([Type.String(), Type.Null()], { description: 'The operator of an override' }),
  recorded_at: Iso('When the change was recorded'),
});

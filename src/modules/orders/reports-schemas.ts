import { Type } from '@sinclair/typebox';

const Figures = {
  created: Type.Integer({ description: 'Orders created in the period' }),
  succeeded: Type.Integer({ description: 'Of those, the successful ones' }),
  conversion: Type.Number({ description: 'succeeded / created, 0..1' }),
  volume: Type.Record(Type.String(), Type.String(), {
    description: 'Successful amount per currency, decimal strings',
  }),
  avg_seconds_to_pay: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Mean seconds from creation to success; null when none succeeded',
  }),
};

const Period = Type.Object({
  from: Type.String({ description: 'ISO 8601 UTC, inclusive' }),
  to: Type.String({ description: 'ISO 8601 UTC, exclusive' }),
  total: Type.Object(Figures, { description: 'PAYIN orders of every type' }),
  by_type: Type.Array(Type.Object({ type: Type.String(), direction: Type.String(), ...Figures })),
});

/** `GET /merchant/reports` and the portal's `reports.json` (docs/decisions.md section 30). */
export const ReportsSchema = Type.Object({
  merchant_id: Type.String(),
  generated_at: Type.String(),
  today: Period,
  last_30_days: Period,
  daily: Type.Object({
    days: Type.Array(Type.String({ description: 'YYYY-MM-DD (UTC)' })),
    created: Type.Array(Type.Integer()),
    succeeded: Type.Array(Type.Integer()),
  }),
});

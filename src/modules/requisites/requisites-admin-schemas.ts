import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/**
 * A requisite as operators see it (requisites-service.ts `requisiteView`); the list adds its load
 * (`active_orders`, `today_turnover`).
 */
export const RequisiteSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([
    Type.Literal('card'),
    Type.Literal('phone'),
    Type.Literal('qr'),
    Type.Literal('account'),
  ]),
  bank: Type.String(),
  bank_code: Nullable(Type.String()),
  address: Type.String(),
  holder_name: Type.String(),
  currency: Type.String(),
  min_amount: Nullable(Type.String({ description: 'A decimal string' })),
  max_amount: Nullable(Type.String({ description: 'A decimal string' })),
  daily_limit: Nullable(Type.String({ description: 'A decimal string' })),
  max_active_orders: Nullable(Type.Integer()),
  emv: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String()),
  masks: Type.Array(Type.String(), {
    description: "Endings its bank's messages may show: a card's last four digits plus extra_masks",
  }),
  extra_masks: Type.Array(Type.String(), { description: 'Endings operators added' }),
  paused_reason: Nullable(
    Type.Union(
      [
        Type.Literal('block'),
        Type.Literal('stale'),
        Type.Literal('liveness'),
        Type.Literal('holder'),
        Type.Literal('own'),
      ],
      {
        description:
          'Why it takes no new orders: its bank blocked it, its device is quiet, or its holder is over their limit or suspended',
      },
    ),
  ),
  paused_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  last_assigned_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  active_orders: Type.Optional(Type.Integer({ description: 'List only: pending orders' })),
  today_turnover: Type.Optional(
    Type.String({ description: "List only: today's turnover, a decimal string" }),
  ),
});

import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/** One payout of the operators' queue (`GET /admin/payouts`, payouts-service.ts `list`). */
export const PayoutQueueItemSchema = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  order_id: Type.String({ description: "The merchant's order_id" }),
  type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('error')]),
  amount: Type.Number(),
  fee: Type.Number(),
  amountAfterFee: Type.Number({ description: 'What is debited from the merchant' }),
  holder_account: Type.String({ description: 'The full account number, to execute the payout' }),
  holder_name: Type.String(),
  bank: Type.String(),
  status_reason: Nullable(Type.String()),
  assigned_to: Nullable(Type.String({ description: 'The operator who took it' })),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  finished_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
});

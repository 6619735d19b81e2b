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

export const PayoutParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** `POST /admin/payouts/{id}/holder`. */
export const HolderPayoutBody = Type.Object({
  holder_id: Type.String({ minLength: 1, maxLength: 100, description: 'The holder who sends it' }),
});

/**
 * `POST /admin/payouts/{id}/holder-sent` (as JSON, or the same fields in a multipart form, which the
 * schema does not see: `holder_id` is required by the handler).
 */
export const HolderSentBody = Type.Object({
  holder_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Required: the holder the payout was given to',
    }),
  ),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});

/** A payout given to a holder. */
export const HolderPayoutSchema = Type.Object({
  order_id: Type.String({ description: 'Our id of the PAYOUT' }),
  holder_id: Type.String(),
  amount: Type.String({ description: 'What the holder sends, decimal' }),
  currency: Type.String(),
});

/** A payout the holder sent. */
export const HolderSentSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'success' }),
  holder_id: Type.String(),
  finished_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
});

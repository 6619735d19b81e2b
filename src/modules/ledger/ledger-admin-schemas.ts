import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

// Answers of the operators' ledger routes (ledger-admin-routes.ts), exactly as ledger-service.ts
// builds them.

/** `POST /admin/merchants/{merchant_id}/ledger-adjustments`: the journal and the balance after it. */
export const LedgerAdjustmentSchema = Type.Object({
  journal_id: Type.String(),
  currency: Type.String(),
  balance: Type.Number(),
  reserved: Type.Number(),
  available: Type.Number(),
});

/** One entry of the merchant's account. */
export const LedgerEntrySchema = Type.Object({
  id: Type.Integer(),
  journal_id: Type.String(),
  currency: Type.String(),
  amount: Type.String({ description: 'Signed decimal string: positive credits the merchant' }),
  kind: Type.String(),
  order_id: Nullable(Type.String()),
  memo: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});

/** `GET /admin/merchants/{merchant_id}/ledger`: the latest entries and the sum per currency. */
export const LedgerEntriesSchema = Type.Object({
  entries: Type.Array(LedgerEntrySchema),
  sums: Type.Record(Type.String(), Type.String({ description: 'Decimal string' }), {
    description: 'The sum of all entries per currency (equals the balance)',
  }),
});

import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/** A receipt as support sees it (`GET /admin/receipts`, accept, reject; receipts-service.ts `receiptView`). */
export const ReceiptSchema = Type.Object({
  id: Type.String(),
  order_id: Type.String(),
  merchant_id: Type.String(),
  source: Type.Union([
    Type.Literal('file'),
    Type.Literal('url'),
    Type.Literal('form'),
    Type.Literal('payout_proof'),
  ]),
  source_url: Nullable(Type.String()),
  content_type: Type.String({
    description: 'Sniffed from the content: application/pdf, image/jpeg or image/png',
  }),
  size_bytes: Type.Integer(),
  status: Type.Union([Type.Literal('under_review'), Type.Literal('accepted'), Type.Literal('rejected')]),
  reason: Nullable(Type.String()),
  reviewed_by: Nullable(Type.String()),
  reviewed_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});

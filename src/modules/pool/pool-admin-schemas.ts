import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

// Answers of the operators' pool routes (pool-routes.ts), exactly as pool-service.ts builds them.

const OfferStatus = Type.Union([Type.Literal('open'), Type.Literal('taken'), Type.Literal('withdrawn')]);

/** `POST /admin/pool/offers`: the offer published. */
export const PublishedOfferSchema = Type.Object({
  id: Type.String(),
  requisite_id: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  expires_at: Type.String({ description: 'ISO 8601 UTC' }),
  status: OfferStatus,
});

/** `GET /admin/pool/offers`: every offer, newest first, with the order that took it. */
export const AdminOfferSchema = Type.Object({
  id: Type.String(),
  requisite_id: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  status: OfferStatus,
  expires_at: Type.String({ description: 'ISO 8601 UTC' }),
  order_id: Nullable(Type.String()),
  created_by: Type.String({ description: 'The operator or device that published it' }),
});

import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { orderInfoFields } from './orders-schemas.js';

// Answers of the admin order routes (orders-admin-routes.ts), exactly as order-admin-view.ts and
// orders-service.ts build them: the serializer writes only the properties listed here.

/** `adminOrderView`: the merchant's view of the order plus fees, client signals and state reason. */
export const AdminOrderSchema = Type.Object({
  ...orderInfoFields,
  merchant_id: Type.String(),
  requested_amount: Type.String({ description: 'The amount of the request, a decimal string' }),
  fee: Type.String({ description: 'A decimal string' }),
  status_reason: Nullable(Type.String()),
  requisite_id: Nullable(Type.String()),
  client_registered_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  client_orders_count: Nullable(Type.Integer()),
  client_paid_count: Nullable(Type.Integer()),
  paid_orders: Nullable(Type.String({ description: '"<paid>/<orders>" of the client, when both are known' })),
  expires_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  finished_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  received_amount: Nullable(
    Type.String({
      description: 'Crypto: the coins received so far (partial payments add up), a decimal string',
    }),
  ),
  test: Type.Boolean({ description: 'A sandbox order, made with a test key' }),
});

/** `GET /admin/orders`: a page of orders, newest first. */
export const AdminOrderListSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  size: Type.Integer(),
  orders: Type.Array(
    Type.Object({
      ...AdminOrderSchema.properties,
      ended_by: Nullable(
        Type.String({
          description:
            'Who ended an order in status error (`system` for an expiry, `operator:<name>`, `chain-watcher`...); null otherwise',
        }),
      ),
    }),
  ),
});

/** One step of an order's timeline (the creation first). */
export const OrderEventSchema = Type.Object({
  from: Nullable(Type.String()),
  to: Type.String(),
  actor: Type.String(),
  reason: Nullable(Type.String()),
  at: Type.String({ description: 'ISO 8601 UTC' }),
});

/** `GET /admin/orders/{id}`: the order with its timeline. */
export const AdminOrderDetailSchema = Type.Object({
  ...AdminOrderSchema.properties,
  events: Type.Array(OrderEventSchema),
});

/**
 * What the crypto module answers for an operator's confirmation with a transfer. The orders service
 * passes it on untyped (the crypto module owns it), hence its static type `unknown`.
 */
const CryptoConfirmationSchema = Type.Unsafe<unknown>(
  Type.Object({
    outcome: Type.Union(
      ['credited', 'partial', 'late', 'unmatched', 'duplicate'].map((o) => Type.Literal(o)),
    ),
    order_id: Nullable(Type.String()),
    status: Nullable(Type.String()),
  }),
);

/** `POST /admin/orders/{id}/confirm`: the order after it; a crypto order adds the transfer's outcome. */
export const AdminOrderConfirmedSchema = Type.Object({
  ...AdminOrderSchema.properties,
  confirmation: Type.Optional(CryptoConfirmationSchema),
});

import { type Static, Type } from '@sinclair/typebox';
import { isMultipart, type UploadReader } from '../../http/multipart.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { parseUtcDateTime } from '../../lib/utc-date.js';
import {
  AdminOrderConfirmedSchema,
  AdminOrderDetailSchema,
  AdminOrderListSchema,
  AdminOrderSchema,
} from './orders-admin-schemas.js';
import { modeFilter, type OrderFilter } from './orders-lists.js';
import type { OrdersService } from './orders-service.js';

const AdminOrderParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The filters of `GET /admin/orders`. */
const AdminOrdersQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  order_id: Type.Optional(Type.String({ maxLength: 128, description: "The merchant's order_id" })),
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('error')]),
  ),
  direction: Type.Optional(Type.Union([Type.Literal('PAYIN'), Type.Literal('PAYOUT')])),
  type: Type.Optional(Type.String({ maxLength: 32 })),
  from: Type.Optional(Type.String({ description: 'UTC YYYY-MM-DD[ HH:MM:SS]' })),
  to: Type.Optional(Type.String({ description: 'UTC YYYY-MM-DD[ HH:MM:SS], exclusive' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  mode: Type.Optional(
    Type.Union([Type.Literal('live'), Type.Literal('test'), Type.Literal('all')], {
      description:
        'live (default): live orders only; test: sandbox orders only (made with a test key); all: both',
    }),
  ),
});

/** The body of `POST /admin/orders/{id}/confirm` (JSON; a payout's proof comes as multipart). */
const ConfirmBody = Type.Optional(
  Type.Object({
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    tx_hash: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Crypto: the transaction hash (0x hex, hex, or TON base64)',
      }),
    ),
    position: Type.Optional(
      Type.Integer({
        minimum: -1,
        maximum: 2_147_483_647,
        description:
          "Crypto: the transfer's index inside its transaction (log position or output index); -1 is an EVM transaction's own value (ETH, BNB). Default: -1 on ETH and BNB orders, else 0",
      }),
    ),
    received_amount: Type.Optional(
      Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
        description: 'Crypto: the amount received, in the coin',
      }),
    ),
  }),
);

/** The list's filter from its query (dates in UTC; VALIDATION_ERROR for a malformed one). */
function adminFilter(q: Static<typeof AdminOrdersQuery>): OrderFilter {
  const filter: OrderFilter = { ...modeFilter(q.mode) };
  if (q.merchant_id) filter.merchantId = q.merchant_id;
  if (q.order_id) filter.externalId = q.order_id;
  if (q.status) filter.status = q.status;
  if (q.direction) filter.direction = q.direction;
  if (q.type) filter.type = q.type;
  if (q.from) filter.from = parseUtcDateTime('from', q.from);
  if (q.to) filter.to = parseUtcDateTime('to', q.to);
  return filter;
}

/** The operators' reads: the list and one order with its timeline. */
function readRoutes(app: App, orders: OrdersService) {
  app.get(
    '/admin/orders',
    {
      schema: {
        tags: ['admin'],
        querystring: AdminOrdersQuery,
        response: { 200: Envelope(AdminOrderListSchema), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      return {
        success: true as const,
        data: await orders.listAdminOrders(adminFilter(q), q.page ?? 1, q.size ?? 50),
      };
    },
  );

  app.get(
    '/admin/orders/:id',
    {
      schema: {
        tags: ['admin'],
        params: AdminOrderParams,
        response: { 200: Envelope(AdminOrderDetailSchema), ...errorResponses },
      },
    },
    async (request) => ({ success: true as const, data: await orders.getAdminOrder(request.params.id) }),
  );
}

/** The operators' moves: confirm (JSON, or multipart with a payout's proof) and cancel. */
function actionRoutes(app: App, deps: { orders: OrdersService; uploads: UploadReader }) {
  const { orders, uploads } = deps;
  app.post(
    '/admin/orders/:id/confirm',
    {
      schema: {
        tags: ['admin'],
        summary: 'pending -> success; error -> success (late payment) needs a reason',
        params: AdminOrderParams,
        body: ConfirmBody,
        response: { 200: Envelope(AdminOrderConfirmedSchema), ...errorResponses },
      },
    },
    async (request) => {
      if (!isMultipart(request)) {
        return {
          success: true as const,
          data: await orders.confirm(request.params.id, request.body ?? {}, actorOf(request)),
        };
      }
      // A payout marked sent may carry a proof file (multipart: `proof` plus the same text fields).
      const upload = await uploads.read(request.parts(), 'proof');
      try {
        const f = upload.fields;
        const input = {
          reason: f.reason || undefined,
          tx_hash: f.tx_hash || undefined,
          position: f.position || undefined,
          received_amount: f.received_amount || undefined,
        };
        return {
          success: true as const,
          data: await orders.confirm(request.params.id, input, actorOf(request), upload),
        };
      } finally {
        await uploads.discard(upload);
      }
    },
  );

  app.post(
    '/admin/orders/:id/cancel',
    {
      schema: {
        tags: ['admin'],
        summary: 'pending -> error with a reason',
        params: AdminOrderParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: Envelope(AdminOrderSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await orders.cancel(request.params.id, request.body.reason, actorOf(request)),
    }),
  );
}

/** Admin API for orders: list, read, confirm, cancel (docs/api.md "Admin API"; docs/decisions.md section 5). */
export function ordersAdminRoutes(app: App, deps: { orders: OrdersService; uploads: UploadReader }) {
  readRoutes(app, deps.orders);
  actionRoutes(app, deps);
}

import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { isMultipart, MULTIPART_LIMITS } from '../../http/multipart.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { merchantOf } from '../../modules/auth/index.js';
import type { OrdersService } from '../../modules/orders/index.js';
import type { ReceiptsService } from '../receipts/index.js';
import type { AppealsService } from './appeals-service.js';

const Status = Type.Union([Type.Literal('open'), Type.Literal('accepted'), Type.Literal('rejected')]);
export const AppealSchema = Type.Object({
  id: Type.String(),
  order_id: Type.String({ description: 'The internal order id' }),
  receipt_id: Type.String(),
  opened_by: Type.Union([Type.Literal('payer'), Type.Literal('merchant')]),
  status: Status,
  deadline_at: Type.String({ description: 'ISO 8601 UTC: operators resolve it by then' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: "The operator's reason" }),
  resolved_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
const AdminAppealSchema = Type.Intersect([
  AppealSchema,
  Type.Object({
    merchant_id: Type.Optional(Type.String()),
    resolved_by: Type.Union([Type.String(), Type.Null()]),
    overdue: Type.Optional(Type.Boolean()),
  }),
]);
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ok = <T extends Parameters<typeof Type.Object>[0]>(fields: T) =>
  Type.Object({ success: Type.Literal(true), ...fields });

/**
 * Appeals of the signed merchant API (docs/decisions.md section 27): `POST /merchant/appeals` opens a
 * late-payment claim with a receipt, multipart (`orderId`, `receipt`; signed as an empty body) or
 * JSON (`orderId`, `receiptUrl`), under the receipt upload's rules; `GET /merchant/appeals[/{id}]`.
 */
export function appealsRoutes(
  app: App,
  deps: {
    appeals: AppealsService;
    orders: OrdersService;
    receipts: ReceiptsService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
    readLimit: preHandlerAsyncHookHandler;
  },
) {
  const { appeals, orders } = deps;
  const base = { tags: ['merchant'], headers: MerchantHeaders };
  void app.register(async (scope: App) => {
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    scope.post(
      '/merchant/appeals',
      {
        preValidation: [
          deps.merchantAuth,
          async (request) => {
            if (isMultipart(request)) request.body = {};
          },
        ],
        preHandler: deps.rateLimit,
        schema: {
          ...base,
          summary: 'Open a late-payment appeal on a failed PAYIN with a receipt (file or URL)',
          consumes: ['multipart/form-data', 'application/json'],
          body: Type.Object({
            orderId: Type.Optional(Type.String({ maxLength: 200 })),
            receiptUrl: Type.Optional(Type.String({ maxLength: 2048 })),
          }),
          response: { 200: ok({ data: AppealSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const merchant = merchantOf(request);
        const actor = { name: `merchant:${merchant.id}`, ip: request.ip };
        if (isMultipart(request)) {
          const upload = await deps.receipts.readMultipart(request.parts(), 'receipt');
          try {
            if (!upload.orderId) throw new AppError('ORDER_ID_REQUIRED');
            const order = await orders.findOwnOrder(merchant, upload.orderId);
            return {
              success: true as const,
              data: await appeals.openWithFile(order, upload, 'merchant', actor),
            };
          } finally {
            await deps.receipts.discardUpload(upload);
          }
        }
        const { orderId, receiptUrl } = request.body;
        if (!orderId) throw new AppError('ORDER_ID_REQUIRED');
        if (!receiptUrl) throw new AppError('RECEIPT_REQUIRED');
        const order = await orders.findOwnOrder(merchant, orderId);
        return { success: true as const, data: await appeals.openWithUrl(order, receiptUrl, actor) };
      },
    );
  });

  app.get(
    '/merchant/appeals',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.readLimit,
      schema: {
        ...base,
        summary: "The merchant's appeals, newest first",
        querystring: Type.Object({
          status: Type.Optional(Status),
          before: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601: older than this' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
        }),
        response: { 200: ok({ data: Type.Array(AppealSchema) }), ...errorResponses },
      },
    },
    // Appeals are live only: a test key has none (docs/decisions.md section 29).
    async (request) => ({
      success: true as const,
      data: merchantOf(request).test ? [] : await appeals.forMerchant(merchantOf(request).id, request.query),
    }),
  );

  app.get(
    '/merchant/appeals/:id',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.readLimit,
      schema: {
        ...base,
        summary: 'One appeal of the merchant',
        params: IdParams,
        response: { 200: ok({ data: AppealSchema }), ...errorResponses },
      },
    },
    async (request) => {
      if (merchantOf(request).test) throw new AppError('NOT_FOUND');
      return {
        success: true as const,
        data: await appeals.ownAppeal(merchantOf(request).id, request.params.id),
      };
    },
  );
}

/** Operators: the appeals queue (open ones by deadline), accept, reject with a reason. */
export function appealsAdminRoutes(app: App, deps: { appeals: AppealsService }) {
  app.get(
    '/admin/appeals',
    {
      schema: {
        tags: ['admin'],
        summary: 'Appeals: open ones by deadline (overdue marked), the others newest first',
        querystring: Type.Object({
          status: Type.Optional(Status),
          merchant_id: Type.Optional(Type.String({ maxLength: 100 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        response: { 200: Envelope(Type.Array(AdminAppealSchema)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.appeals.list(
        { status: request.query.status, merchantId: request.query.merchant_id },
        request.query.limit ?? 200,
      ),
    }),
  );
  app.post(
    '/admin/appeals/:id/accept',
    {
      schema: {
        tags: ['admin'],
        summary: 'Accept an appeal: the order succeeds as a late payment (ledger, webhooks)',
        params: IdParams,
        body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) })),
        response: { 200: Envelope(AdminAppealSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.appeals.accept(request.params.id, request.body?.reason ?? null, actorOf(request)),
    }),
  );
  app.post(
    '/admin/appeals/:id/reject',
    {
      schema: {
        tags: ['admin'],
        summary: 'Reject an appeal with a reason (the order stays failed)',
        params: IdParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: Envelope(AdminAppealSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.appeals.reject(request.params.id, request.body.reason, actorOf(request)),
    }),
  );
}

import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { isMultipart, MULTIPART_LIMITS, type MultipartUpload } from '../../http/multipart.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { merchantOf } from '../../modules/auth/index.js';
import type { OrdersService } from '../../modules/orders/index.js';
import { ReceiptSchema } from './receipts-admin-schemas.js';
import type { ReceiptsService } from './receipts-service.js';

/**
 * `POST /merchant/receipt/upload` (docs/api.md): multipart (`orderId`, `receipt` file; signed as
 * an empty body) or JSON (`orderId`, `receiptUrl`; signed over the compact JSON). Answers
 * `{success, purchaseId, internalId}`.
 */
export function receiptsRoutes(
  app: App,
  deps: {
    receipts: ReceiptsService;
    orders: OrdersService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  const { receipts, orders } = deps;
  void app.register(async (scope: App) => {
    // A truncated file is marked, not thrown: it becomes RECEIPT_TOO_LARGE after the order checks.
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    scope.post(
      '/merchant/receipt/upload',
      {
        preValidation: [
          deps.merchantAuth,
          async (request) => {
            // The multipart body is read by the handler; validation sees an empty object.
            if (isMultipart(request)) request.body = {};
          },
        ],
        preHandler: deps.rateLimit,
        schema: {
          tags: ['merchant'],
          summary: 'Attach a receipt: multipart (orderId, receipt) or JSON (orderId, receiptUrl)',
          headers: MerchantHeaders,
          consumes: ['multipart/form-data', 'application/json'],
          body: Type.Object({
            orderId: Type.Optional(Type.String({ maxLength: 200 })),
            receiptUrl: Type.Optional(Type.String({ maxLength: 2048 })),
          }),
          response: {
            200: Type.Object({
              success: Type.Literal(true),
              purchaseId: Type.String(),
              internalId: Type.String(),
            }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const merchant = merchantOf(request);
        let receipt: { orderId: string };
        if (isMultipart(request)) {
          const upload: MultipartUpload = await receipts.readMultipart(request.parts(), 'receipt');
          try {
            if (!upload.orderId) throw new AppError('ORDER_ID_REQUIRED');
            if (!upload.file) throw new AppError('RECEIPT_REQUIRED');
            const order = await orders.findOwnOrder(merchant, upload.orderId);
            receipt = await receipts.attachFile(order, upload);
          } catch (err) {
            await receipts.discardUpload(upload);
            throw err;
          }
        } else {
          const { orderId, receiptUrl } = request.body;
          if (!orderId) throw new AppError('ORDER_ID_REQUIRED');
          if (!receiptUrl) throw new AppError('RECEIPT_REQUIRED');
          const order = await orders.findOwnOrder(merchant, orderId);
          receipt = await receipts.attachUrl(order, receiptUrl);
        }
        const order = await orders.findOwnOrder(merchant, receipt.orderId);
        return { success: true as const, purchaseId: order.externalId, internalId: order.id };
      },
    );
  });
}

/** Support: receipts queue, the file viewer, accept / reject (docs/decisions.md section 9). */
export function receiptsAdminRoutes(app: App, deps: { receipts: ReceiptsService }) {
  const Id = Type.Object({ id: Type.String({ maxLength: 64 }) });
  app.get(
    '/admin/receipts',
    {
      schema: {
        tags: ['admin'],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('under_review'), Type.Literal('accepted'), Type.Literal('rejected')]),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        response: { 200: Envelope(Type.Array(ReceiptSchema)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.receipts.list(request.query.status, request.query.limit ?? 200),
    }),
  );
  app.get(
    '/admin/receipts/:id/file',
    { schema: { tags: ['admin'], params: Id, produces: ['application/pdf', 'image/jpeg', 'image/png'] } },
    async (request, reply) => {
      const file = await deps.receipts.file(request.params.id);
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(file.stream);
    },
  );
  app.post(
    '/admin/receipts/:id/accept',
    {
      schema: { tags: ['admin'], params: Id, response: { 200: Envelope(ReceiptSchema), ...errorResponses } },
    },
    async (request) => ({
      success: true as const,
      data: await deps.receipts.review(request.params.id, 'accepted', null, actorOf(request)),
    }),
  );
  app.post(
    '/admin/receipts/:id/reject',
    {
      schema: {
        tags: ['admin'],
        params: Id,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: Envelope(ReceiptSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.receipts.review(request.params.id, 'rejected', request.body.reason, actorOf(request)),
    }),
  );
}

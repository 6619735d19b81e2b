import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { PayoutQueueItemSchema } from './payouts-admin-schemas.js';
import type { PayoutsService } from './payouts-service.js';

const Standard = Type.Object({
  code: Type.String(),
  name: Type.String(),
  types: Type.Array(
    Type.Object({
      type: Type.String(),
      account: Type.String(),
      digits: Type.Integer(),
      pattern: Type.String(),
    }),
  ),
});

/** `GET /merchant/bank-standards` (docs/decisions.md section 12). */
export function bankStandardsRoutes(
  app: App,
  deps: {
    payouts: PayoutsService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  app.get(
    '/merchant/bank-standards',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.rateLimit,
      schema: {
        tags: ['merchant'],
        summary: 'Per bank: the payout types it serves and the account format of each',
        headers: MerchantHeaders,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            count: Type.Integer(),
            data: Type.Array(Standard),
          }),
          ...errorResponses,
        },
      },
    },
    async () => {
      const data = await deps.payouts.bankStandards();
      return { success: true as const, count: data.length, data };
    },
  );
}

/** Operators' payout queue: `GET /admin/payouts?status=` (docs/decisions.md section 10). */
export function payoutsAdminRoutes(app: App, deps: { payouts: PayoutsService }) {
  app.get(
    '/admin/payouts',
    {
      schema: {
        tags: ['admin'],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('error')]),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        response: { 200: Envelope(Type.Array(PayoutQueueItemSchema)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.payouts.list(request.query.status, request.query.limit ?? 200),
    }),
  );
}

import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { type App, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { merchantOf } from '../../modules/auth/index.js';
import { OrderIdParams, OrderResponseSchema } from '../../modules/orders/index.js';
import { SANDBOX_OUTCOMES, type SandboxService } from './sandbox-service.js';

/**
 * The sandbox's signed merchant call (docs/decisions.md section 29): `POST /merchant/sandbox/orders/{id}/outcome`
 * with `{outcome, amount?}` and a test key drives a test order as a payer, a bank or an operator
 * would; the answer is the order as `GET /merchant/order/{id}` gives it.
 */
export function sandboxRoutes(
  app: App,
  deps: {
    sandbox: SandboxService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  app.post(
    '/merchant/sandbox/orders/:id/outcome',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.rateLimit,
      schema: {
        tags: ['merchant'],
        summary:
          'Sandbox: drive a test order (test key only) to paid, expired, cancelled, a receipt decision or a payout outcome',
        headers: MerchantHeaders,
        params: OrderIdParams,
        body: Type.Object({
          outcome: Type.Union(
            SANDBOX_OUTCOMES.map((o) => Type.Literal(o)),
            { description: 'What happens to the test order' },
          ),
          amount: Type.Optional(
            Type.String({
              maxLength: 40,
              description:
                'paid_other_amount: what was paid (coins for a crypto order, else the order currency)',
            }),
          ),
        }),
        response: { 200: OrderResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const input =
        request.body.amount === undefined
          ? { outcome: request.body.outcome }
          : { outcome: request.body.outcome, amount: request.body.amount };
      const data = await deps.sandbox.drive(merchantOf(request), request.params.id, input, request.ip);
      return { success: true as const, ok: true as const, data, ...data };
    },
  );
}

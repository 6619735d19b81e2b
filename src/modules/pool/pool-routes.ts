import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { merchantOf } from '../auth/index.js';
import { AdminOfferSchema, PublishedOfferSchema } from './pool-admin-schemas.js';
import type { PoolService } from './pool-service.js';

const Offer = Type.Object({
  id: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  remainingSeconds: Type.Integer(),
});
export const OfferInput = {
  requisite_id: Type.String({ maxLength: 64 }),
  amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000_000 }),
  type: Type.String({ maxLength: 32 }),
  ttl_seconds: Type.Integer({ minimum: 60, maximum: 86_400 }),
};

/** `GET /merchant/pool/requisites` (docs/decisions.md sections 12 and 23): `{success, data, requisites}`. */
export function poolMerchantRoutes(
  app: App,
  deps: {
    pool: PoolService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  app.get(
    '/merchant/pool/requisites',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.rateLimit,
      schema: {
        tags: ['merchant'],
        summary:
          'Pre-reserved requisites with a fixed amount; take one with createOrder usePool + requisiteId',
        headers: MerchantHeaders,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Array(Offer),
            requisites: Type.Array(Offer),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      // Pool offers are live requisites: a test key sees none (docs/decisions.md section 29).
      const offers = merchantOf(request).test ? [] : await deps.pool.offersFor(merchantOf(request));
      return { success: true as const, data: offers, requisites: offers };
    },
  );
}

/** Admin: pool offers (docs/decisions.md section 23). */
export function poolAdminRoutes(app: App, deps: { pool: PoolService }) {
  app.post(
    '/admin/pool/offers',
    {
      schema: {
        tags: ['admin'],
        body: Type.Object(OfferInput),
        response: { 200: Envelope(PublishedOfferSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.publishOffer(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/pool/offers',
    {
      schema: {
        tags: ['admin'],
        response: { 200: Envelope(Type.Array(AdminOfferSchema)), ...errorResponses },
      },
    },
    async () => ({ success: true as const, data: await deps.pool.listOffers() }),
  );
}

import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { AnyObject, type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { actorOf } from '../auth/admin-auth.js';
import { merchantOf } from '../auth/merchant-auth.js';
import type { DeviceRow, PoolService } from './pool-service.js';

const Offer = Type.Object({
  id: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  remainingSeconds: Type.Integer(),
});
const OfferInput = {
  requisite_id: Type.String({ maxLength: 64 }),
  amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000_000 }),
  type: Type.String({ maxLength: 32 }),
  ttl_seconds: Type.Integer({ minimum: 60, maximum: 86_400 }),
};

declare module 'fastify' {
  interface FastifyRequest {
    device?: DeviceRow;
  }
}

/** `GET /merchant/pool/requisites` (decisions.md section 12; issue 9): `{success, data, requisites}`. */
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
      const offers = await deps.pool.offersFor(merchantOf(request));
      return { success: true as const, data: offers, requisites: offers };
    },
  );
}

/** Requisite holders' devices: `POST /trader/notifications` and `POST /trader/offers` (Bearer device token). */
export function traderRoutes(app: App, deps: { pool: PoolService }) {
  const deviceAuth: preValidationAsyncHookHandler = async (request) => {
    const value = request.headers.authorization;
    const token = typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7).trim() : '';
    const device = token.startsWith('dev_') ? await deps.pool.deviceByToken(token) : undefined;
    if (!device) throw new AppError('UNAUTHORIZED');
    request.device = device;
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
  };
  const deviceOf = (request: { device?: DeviceRow }) => {
    if (!request.device) throw new AppError('UNAUTHORIZED');
    return request.device;
  };
  app.post(
    '/trader/notifications',
    {
      preValidation: deviceAuth,
      schema: {
        tags: ['trader'],
        summary: 'A bank notification of an incoming transfer to one of the device holder requisites',
        body: Type.Object({
          message_id: Type.String({ minLength: 1, maxLength: 200 }),
          requisite_id: Type.String({ maxLength: 64 }),
          amount: Type.Union([
            Type.Number({ exclusiveMinimum: 0 }),
            Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,2})?$' }),
          ]),
          currency: Type.String({ maxLength: 8 }),
          received_at: Type.String({ maxLength: 40 }),
          text: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.ingest(deviceOf(request), request.body),
    }),
  );
  app.post(
    '/trader/offers',
    {
      preValidation: deviceAuth,
      schema: {
        tags: ['trader'],
        body: Type.Object(OfferInput),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => {
      const device = deviceOf(request);
      if (!device.requisiteIds.includes(request.body.requisite_id)) throw new AppError('FORBIDDEN');
      return {
        success: true as const,
        data: await deps.pool.publishOffer(request.body, { name: `device:${device.name}`, ip: request.ip }),
      };
    },
  );
}

/** Admin: offers, devices, notifications (issue 9). */
export function poolAdminRoutes(app: App, deps: { pool: PoolService }) {
  app.post(
    '/admin/pool/offers',
    {
      schema: {
        tags: ['admin'],
        body: Type.Object(OfferInput),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.publishOffer(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/pool/offers',
    { schema: { tags: ['admin'], response: { 200: Envelope(Type.Array(AnyObject)), ...errorResponses } } },
    async () => ({ success: true as const, data: await deps.pool.listOffers() }),
  );
  app.post(
    '/admin/devices',
    {
      schema: {
        tags: ['admin'],
        summary: "Issue a device token (shown once) for a requisite holder's phone",
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          requisite_ids: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }),
        }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.createDevice(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/notifications',
    {
      schema: {
        tags: ['admin'],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union(['matched', 'unmatched', 'late', 'assigned'].map((s) => Type.Literal(s))),
          ),
        }),
        response: { 200: Envelope(Type.Array(AnyObject)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.listNotifications(
        request.query.status as 'matched' | 'unmatched' | 'late' | 'assigned' | undefined,
      ),
    }),
  );
  app.post(
    '/admin/notifications/:id/assign',
    {
      schema: {
        tags: ['admin'],
        summary: 'Confirm an order with an unmatched or late notification',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ order_id: Type.String({ maxLength: 64 }) }),
        response: { 200: Envelope(AnyObject), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.pool.assign(request.params.id, request.body.order_id, actorOf(request)),
    }),
  );
}

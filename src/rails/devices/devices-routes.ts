import { Type } from '@sinclair/typebox';
import type { preValidationAsyncHookHandler } from 'fastify';
import { bearerToken } from '../../http/bearer.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { OfferInput, type PoolService } from '../../modules/pool/index.js';
import { NotificationSchema, PublishedOfferSchema } from './devices-admin-schemas.js';
import type { DeviceRow } from './devices-repository.js';
import type { DevicesService } from './devices-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    device?: DeviceRow;
  }
}

/** Requisite holders' devices: `POST /holder/offers`, and `/trader/offers` as before (Bearer device token). */
export function holderRoutes(app: App, deps: { devices: DevicesService; pool: PoolService }) {
  const deviceAuth: preValidationAsyncHookHandler = async (request) => {
    const token = bearerToken(request);
    const device = token.startsWith('dev_') ? await deps.devices.deviceByToken(token) : undefined;
    if (!device) throw new AppError('UNAUTHORIZED');
    request.device = device;
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
  };
  const deviceOf = (request: { device?: DeviceRow }) => {
    if (!request.device) throw new AppError('UNAUTHORIZED');
    return request.device;
  };
  // `/trader/offers` is the path phones set up before requisite holders had their name (docs/api.md
  // "Devices and requisite holders"): kept, marked deprecated, the same route as `/holder/offers`.
  for (const path of ['/holder/offers', '/trader/offers'] as const) {
    app.post(
      path,
      {
        preValidation: deviceAuth,
        schema: {
          tags: ['holder'],
          ...(path === '/trader/offers' ? { deprecated: true } : {}),
          body: Type.Object(OfferInput),
          response: { 200: Envelope(PublishedOfferSchema), ...errorResponses },
        },
      },
      async (request) => {
        const device = deviceOf(request);
        if (!(await deps.devices.boundRequisites(device)).includes(request.body.requisite_id))
          throw new AppError('FORBIDDEN');
        return {
          success: true as const,
          data: await deps.pool.publishOffer(request.body, { name: `device:${device.name}`, ip: request.ip }),
        };
      },
    );
  }
}

/** Admin: the history of pre-parsed bank notifications (read only); devices themselves: device-admin-routes.ts. */
export function devicesAdminRoutes(app: App, deps: { devices: DevicesService }) {
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
        response: { 200: Envelope(Type.Array(NotificationSchema)), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.devices.listNotifications(
        request.query.status as 'matched' | 'unmatched' | 'late' | 'assigned' | undefined,
      ),
    }),
  );
}

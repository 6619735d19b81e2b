import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { DeliverySchema } from './webhooks-admin-schemas.js';
import type { WebhooksService } from './webhooks-service.js';

/** Operators: webhook deliveries with their attempts, and resend (docs/api.md "Admin API"). */
export function webhooksAdminRoutes(app: App, deps: { webhooks: WebhooksService }) {
  app.get(
    '/admin/webhooks',
    {
      schema: {
        tags: ['admin'],
        querystring: Type.Object({
          order_id: Type.Optional(Type.String({ maxLength: 64 })),
          status: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('exhausted')]),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        }),
        response: { 200: Envelope(Type.Array(DeliverySchema)), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const filter: { orderId?: string; status?: string } = {};
      if (q.order_id) filter.orderId = q.order_id;
      if (q.status) filter.status = q.status;
      return { success: true as const, data: await deps.webhooks.list(filter, q.limit ?? 100) };
    },
  );

  app.post(
    '/admin/webhooks/:id/resend',
    {
      schema: {
        tags: ['admin'],
        summary: 'Send the same body again as a new delivery, signed with the current key',
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        response: { 200: Envelope(DeliverySchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.webhooks.resend(request.params.id, actorOf(request)),
    }),
  );
}

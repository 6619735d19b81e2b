import { Type } from '@sinclair/typebox';
import type { FastifyRequest, preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { type App, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { merchantOf } from '../../modules/auth/index.js';
import type { EventSubscriptions } from './event-subscriptions.js';
import { EVENT_TYPES } from './event-types.js';
import { DeliverySchema, EventTypeSchema as EventType } from './webhooks-admin-schemas.js';

const Subscription = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventType),
  enabled: Type.Boolean(),
  test: Type.Boolean({
    description: "The key's mode that made it: true gets test orders' events only, false live ones only",
  }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
/** Whether the request was signed with a test key (the mode every answer here is scoped to). */
const testKey = (request: FastifyRequest): boolean => merchantOf(request).test === true;
const ok = <T extends Parameters<typeof Type.Object>[0]>(fields: T) =>
  Type.Object({ success: Type.Literal(true), ...fields });

/**
 * Event subscriptions of the signed merchant API (docs/decisions.md section 26): create, list, delete, send a
 * test event, and read the delivery log. Signed like every merchant call; scoped to the caller and to
 * the key's mode: a test key sees and changes test subscriptions only, a live key live ones only
 * (docs/api.md "Event subscriptions").
 */
export function eventSubscriptionsRoutes(
  app: App,
  deps: {
    subscriptions: EventSubscriptions;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  const { subscriptions } = deps;
  const common = { preValidation: deps.merchantAuth, preHandler: deps.rateLimit };
  const base = { tags: ['merchant'], headers: MerchantHeaders };

  app.post(
    '/merchant/webhooks/subscriptions',
    {
      ...common,
      schema: {
        ...base,
        summary: 'Subscribe an endpoint to events (signed and retried like the success webhook)',
        body: Type.Object({
          url: Type.String({ maxLength: 2048 }),
          events: Type.Array(EventType, { minItems: 1, maxItems: EVENT_TYPES.length }),
        }),
        response: { 200: ok({ data: Subscription }), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.subscribe(merchantOf(request).id, testKey(request), request.body, request.ip),
    }),
  );

  app.get(
    '/merchant/webhooks/subscriptions',
    {
      ...common,
      schema: {
        ...base,
        summary: "The merchant's event subscriptions",
        response: { 200: ok({ data: Type.Array(Subscription) }), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.list(merchantOf(request).id, testKey(request)),
    }),
  );

  app.delete(
    '/merchant/webhooks/subscriptions/:id',
    {
      ...common,
      schema: {
        ...base,
        summary: 'Delete an event subscription (deliveries already queued still go)',
        params: IdParams,
        response: {
          200: ok({ data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.remove(merchantOf(request).id, testKey(request), request.params.id),
    }),
  );

  app.post(
    '/merchant/webhooks/subscriptions/:id/test',
    {
      ...common,
      schema: {
        ...base,
        summary: 'Send a test event (marked "test": true, an example order) to the subscription',
        params: IdParams,
        body: Type.Optional(Type.Object({ type: Type.Optional(EventType) })),
        response: {
          200: ok({ data: Type.Object({ delivery_id: Type.String(), type: Type.String() }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.sendTest(
        merchantOf(request).id,
        request.params.id,
        request.body?.type,
        testKey(request),
      ),
    }),
  );

  app.get(
    '/merchant/webhooks/deliveries',
    {
      ...common,
      schema: {
        ...base,
        summary:
          'The delivery log: success webhooks (event_type null) and events, each with its attempts (status, latency, answer)',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
          before: Type.Optional(Type.String({ description: 'ISO 8601: deliveries created before it' })),
        }),
        response: { 200: ok({ data: Type.Array(DeliverySchema) }), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.deliveries(merchantOf(request).id, request.query, testKey(request)),
    }),
  );
}

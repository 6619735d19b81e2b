import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { type DeviceAdmin, MAX_ROTATION_GRACE_SECONDS } from './device-admin-service.js';
import type { DeviceIngest } from './device-ingest-service.js';
import type { DeviceReview } from './device-review-service.js';
import { DeviceCreatedSchema, DeviceEventSchema, DeviceSchema } from './devices-admin-schemas.js';

const Id = Type.Object({ id: Type.String({ maxLength: 64 }) });
const RequisiteIds = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 });
const EVENT_STATUSES = [
  'confirmed',
  'review',
  'assigned',
  'dismissed',
  'paired',
  'ignored',
  'block',
  'alert',
] as const;
const ok = <T>(data: T) => ({ success: true as const, data });

type Deps = { admin: DeviceAdmin; review: DeviceReview; ingest: DeviceIngest };

/** Pairing a phone and the list of devices. */
function pairingRoutes(app: App, deps: Deps) {
  app.post(
    '/admin/devices',
    {
      schema: {
        tags: ['admin'],
        summary: "Pair a holder's phone: every app's setup and a one-time pairing link, shown once",
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          requisite_ids: RequisiteIds,
        }),
        response: { 200: Envelope(DeviceCreatedSchema), ...errorResponses },
      },
    },
    async (request) => ok(await deps.admin.create(request.body, actorOf(request))),
  );
  app.get(
    '/admin/devices',
    {
      schema: {
        tags: ['admin'],
        summary: 'Devices with state, last seen, health, requisites and warnings',
        response: { 200: Envelope(Type.Array(DeviceSchema)), ...errorResponses },
      },
    },
    async () => ok(await deps.admin.list()),
  );
}

/** A paired device's life: its requisites, new secrets, revocation. */
function lifecycleRoutes(app: App, deps: Deps) {
  app.put(
    '/admin/devices/:id/requisites',
    {
      schema: {
        tags: ['admin'],
        summary: 'Replace the requisites whose orders the device confirms (one device per requisite)',
        params: Id,
        body: Type.Object({ requisite_ids: RequisiteIds }),
        response: {
          200: Envelope(Type.Object({ id: Type.String(), requisite_ids: Type.Array(Type.String()) })),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      ok(await deps.admin.bind(request.params.id, request.body.requisite_ids, actorOf(request))),
  );
  app.put(
    '/admin/devices/:id/holder',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Give the phone to a holder (null: to none); another holder's phone moves only with move: true",
        params: Id,
        body: Type.Object(
          {
            holder_id: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
            move: Type.Optional(Type.Boolean({ description: 'Move it from the holder it belongs to' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({ id: Type.String(), holder_id: Type.Union([Type.String(), Type.Null()]) }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      ok(
        await deps.admin.assignHolder(
          request.params.id,
          request.body.holder_id,
          request.body.move ?? false,
          actorOf(request),
        ),
      ),
  );
  app.post(
    '/admin/devices/:id/rotate',
    {
      schema: {
        tags: ['admin'],
        summary: 'New secrets (shown once); the old ones work for grace_seconds (default 0)',
        params: Id,
        body: Type.Object({
          grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROTATION_GRACE_SECONDS })),
        }),
        response: { 200: Envelope(DeviceCreatedSchema), ...errorResponses },
      },
    },
    async (request) =>
      ok(await deps.admin.rotate(request.params.id, request.body.grace_seconds ?? 0, actorOf(request))),
  );
  app.post(
    '/admin/devices/:id/revoke',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revoke at once: every secret stops working, its requisites are unbound',
        params: Id,
        response: {
          200: Envelope(
            Type.Object({
              id: Type.String(),
              revoked_at: Type.String(),
              unbound_requisite_ids: Type.Array(Type.String()),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => ok(await deps.admin.revoke(request.params.id, actorOf(request))),
  );
}

/** The review queue of devices' messages, and naming a message's sender as a bank's. */
function reviewRoutes(app: App, deps: Deps) {
  app.get(
    '/admin/device-events',
    {
      schema: {
        tags: ['admin'],
        summary: "Devices' messages, newest first: ?status=review is the operators' queue",
        querystring: Type.Object({
          status: Type.Optional(Type.Union(EVENT_STATUSES.map((s) => Type.Literal(s)))),
          device_id: Type.Optional(Type.String({ maxLength: 64 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        }),
        response: { 200: Envelope(Type.Array(DeviceEventSchema)), ...errorResponses },
      },
    },
    async (request) => ok(await deps.review.list(request.query)),
  );
  app.post(
    '/admin/device-events/:id/assign',
    {
      schema: {
        tags: ['admin'],
        summary: 'Confirm an order with a bank credit message from the review queue',
        params: Id,
        body: Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Envelope(DeviceEventSchema), ...errorResponses },
      },
    },
    async (request) =>
      ok(await deps.review.assign(request.params.id, request.body.order_id, actorOf(request))),
  );
  app.post(
    '/admin/device-events/:id/dismiss',
    {
      schema: {
        tags: ['admin'],
        summary: 'Close a review item, block or alert without moving money (reason required)',
        params: Id,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: Envelope(DeviceEventSchema), ...errorResponses },
      },
    },
    async (request) =>
      ok(await deps.review.dismiss(request.params.id, request.body.reason, actorOf(request))),
  );
  app.post(
    '/admin/banks/:code/sources',
    {
      schema: {
        tags: ['admin'],
        summary:
          "This message's sender is this bank's: add it to the bank's list and decide the message again",
        params: Type.Object({ code: Type.String({ maxLength: 32 }) }),
        body: Type.Object({ event_id: Type.String({ maxLength: 64 }) }),
        response: {
          200: Envelope(
            Type.Object({
              bank_code: Type.String(),
              source: Type.String(),
              event_id: Type.String(),
              outcome: Type.Union([
                Type.Null(),
                Type.Object({
                  status: Type.String(),
                  event_id: Type.Optional(Type.String()),
                  reason: Type.Optional(Type.String()),
                }),
              ]),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      ok(await deps.ingest.senderIs(request.body.event_id, request.params.code, actorOf(request))),
  );
}

/**
 * Admin: requisite holders' devices (docs/decisions.md section 24): pairing, bindings, rotation, revocation, the list
 * with liveness, and the review queue of their messages.
 */
export function deviceAdminRoutes(app: App, deps: Deps) {
  pairingRoutes(app, deps);
  lifecycleRoutes(app, deps);
  reviewRoutes(app, deps);
}

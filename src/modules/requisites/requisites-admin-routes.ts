import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, Nullable } from '../../http/schemas.js';
import { RequisiteSchema } from './requisites-admin-schemas.js';
import type { RequisitesService } from './requisites-service.js';

const Amount = Nullable(
  Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,2})?$' })]),
);

const limitFields = {
  min_amount: Type.Optional(Amount),
  max_amount: Type.Optional(Amount),
  daily_limit: Type.Optional(Amount),
  max_active_orders: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000 }))),
  emv: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
};

/** Admin API for the requisites pool (docs/api.md "Admin API"; docs/decisions.md section 7). */
export function requisitesAdminRoutes(app: App, deps: { requisites: RequisitesService }) {
  app.post(
    '/admin/requisites',
    {
      schema: {
        tags: ['admin'],
        body: Type.Object(
          {
            kind: Type.Union([
              Type.Literal('card'),
              Type.Literal('phone'),
              Type.Literal('qr'),
              Type.Literal('account'),
            ]),
            bank: Type.String({ minLength: 1, maxLength: 100 }),
            address: Type.String({ minLength: 1, maxLength: 2048 }),
            holder_name: Type.String({ minLength: 1, maxLength: 200 }),
            currency: Type.String({ maxLength: 8 }),
            ...limitFields,
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(RequisiteSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.requisites.create(request.body, actorOf(request)),
    }),
  );

  app.get(
    '/admin/requisites',
    {
      schema: {
        tags: ['admin'],
        response: { 200: Envelope(Type.Array(RequisiteSchema)), ...errorResponses },
      },
    },
    async () => ({ success: true as const, data: await deps.requisites.list() }),
  );

  app.patch(
    '/admin/requisites/:id',
    {
      schema: {
        tags: ['admin'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          {
            enabled: Type.Optional(Type.Boolean()),
            holder_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            masks: Type.Optional(Type.Array(Type.String({ maxLength: 8 }), { maxItems: 10 })),
            paused_reason: Type.Optional(Type.Null({ description: 'null resumes a paused requisite' })),
            ...limitFields,
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(RequisiteSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.requisites.update(request.params.id, request.body, actorOf(request)),
    }),
  );
}

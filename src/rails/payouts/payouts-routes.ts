import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { isMultipart, type UploadReader } from '../../http/multipart.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { invalidField } from '../../lib/errors.js';
import {
  HolderPayoutBody,
  HolderPayoutSchema,
  HolderSentBody,
  HolderSentSchema,
  PayoutParams,
  PayoutQueueItemSchema,
} from './payouts-admin-schemas.js';
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

/**
 * Operators' payout queue: `GET /admin/payouts?status=` (docs/decisions.md section 10); payouts
 * through holders (docs/decisions.md "Payouts through holders"): `POST /admin/payouts/{id}/holder`
 * gives one to a holder, `POST /admin/payouts/{id}/holder-sent` records that they sent it (JSON, or
 * multipart with the receipt as `proof`). Writes need `payouts.manage`.
 */
export function payoutsAdminRoutes(app: App, deps: { payouts: PayoutsService; uploads: UploadReader }) {
  holderPayoutRoutes(app, deps);
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

function holderPayoutRoutes(app: App, deps: { payouts: PayoutsService; uploads: UploadReader }) {
  app.post(
    '/admin/payouts/:id/holder',
    {
      schema: {
        tags: ['admin'],
        summary: 'Give a pending PAYOUT to a holder to send from their card',
        params: PayoutParams,
        body: HolderPayoutBody,
        response: { 200: Envelope(HolderPayoutSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.payouts.assignToHolder(request.params.id, request.body.holder_id, actorOf(request)),
    }),
  );

  app.post(
    '/admin/payouts/:id/holder-sent',
    {
      schema: {
        tags: ['admin'],
        summary: 'The holder sent the payout (multipart: the receipt as `proof`)',
        params: PayoutParams,
        body: Type.Optional(HolderSentBody),
        response: { 200: Envelope(HolderSentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const id = request.params.id;
      if (!isMultipart(request)) {
        const holderId = required(request.body?.holder_id);
        const reason = request.body?.reason ?? null;
        const sent = await deps.payouts.markSentByHolder(id, holderId, reason, actorOf(request));
        return { success: true as const, data: sentView(sent, holderId) };
      }
      const upload = await deps.uploads.read(request.parts(), 'proof');
      try {
        const f = upload.fields;
        const holderId = required(f.holder_id);
        const sent = await deps.payouts.markSentByHolder(
          id,
          holderId,
          f.reason || null,
          actorOf(request),
          upload,
        );
        return { success: true as const, data: sentView(sent, holderId) };
      } finally {
        await deps.uploads.discard(upload);
      }
    },
  );
}

/** The holder named in the request: VALIDATION_ERROR when absent or blank. */
function required(holderId: string | undefined): string {
  if (!holderId?.trim()) throw invalidField('holder_id', 'is required');
  return holderId.trim();
}

function sentView(order: { id: string; status: string; finishedAt: Date | null }, holderId: string) {
  return {
    id: order.id,
    status: order.status,
    holder_id: holderId,
    finished_at: order.finishedAt?.toISOString() ?? null,
  };
}

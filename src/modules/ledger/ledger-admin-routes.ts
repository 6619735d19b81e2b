import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { LedgerAdjustmentSchema, LedgerEntriesSchema } from './ledger-admin-schemas.js';
import type { LedgerService } from './ledger-service.js';

const MerchantIdParams = Type.Object({ merchant_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Admin API of a merchant's ledger: manual adjustments (audited) and the entries (docs/api.md "Admin API"). */
export function ledgerAdminRoutes(app: App, deps: { ledger: LedgerService }) {
  app.post(
    '/admin/merchants/:merchant_id/ledger-adjustments',
    {
      schema: {
        tags: ['admin'],
        summary: 'Credit (positive) or debit (negative) a merchant balance',
        params: MerchantIdParams,
        body: Type.Object({
          currency: Type.String({ maxLength: 8 }),
          amount: Type.Union([Type.Number(), Type.String({ maxLength: 32 })]),
          reason: Type.String({ minLength: 1, maxLength: 500 }),
        }),
        response: { 200: Envelope(LedgerAdjustmentSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.ledger.adjust(request.params.merchant_id, request.body, actorOf(request)),
    }),
  );

  app.get(
    '/admin/merchants/:merchant_id/ledger',
    {
      schema: {
        tags: ['admin'],
        params: MerchantIdParams,
        response: { 200: Envelope(LedgerEntriesSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.ledger.entries(request.params.merchant_id),
    }),
  );
}

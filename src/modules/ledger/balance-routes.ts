import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { type App, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { assertOwnMerchantId } from '../auth/index.js';
import type { LedgerService } from './ledger-service.js';

const CurrencyBalance = Type.Object({
  currency: Type.String(),
  balance: Type.Number(),
  reserved: Type.Number(),
  available: Type.Number(),
});

const balanceFields = {
  merchant_id: Type.String(),
  balance: Type.Number({ description: 'Ledger balance in the main currency' }),
  reserved: Type.Number({ description: 'Held by pending payouts' }),
  available: Type.Number({ description: 'balance - reserved' }),
  currency: Type.String({ description: 'Main currency (the first enabled)' }),
  usdtBalance: Type.Number(),
  allowUsdt: Type.Boolean(),
  balances: Type.Array(CurrencyBalance),
};

/** `GET /merchant/balance/{merchant_id}` (docs/decisions.md section 12; fields also at the top level, compat). */
export function balanceRoutes(
  app: App,
  deps: {
    ledger: LedgerService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  app.get(
    '/merchant/balance/:merchant_id',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.rateLimit,
      schema: {
        tags: ['merchant'],
        summary: 'Merchant balance per currency',
        headers: MerchantHeaders,
        params: Type.Object({ merchant_id: Type.String({ maxLength: 128 }) }),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            ok: Type.Literal(true),
            data: Type.Object(balanceFields),
            ...balanceFields,
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const merchant = assertOwnMerchantId(request, request.params.merchant_id);
      const data = await deps.ledger.merchantBalance(merchant);
      return { success: true as const, ok: true as const, data, ...data };
    },
  );
}

import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, MerchantHeaders, Nullable } from '../../http/schemas.js';
import { AdminBankSchema } from './banks-admin-schemas.js';
import { type BankRow, type BanksService, bankSourcesOf } from './banks-service.js';

const Bank = Type.Object({ code: Type.String(), name: Type.String() });

/** `GET /merchant/banks` (docs/api.md "GET /merchant/banks"). */
export function banksRoutes(
  app: App,
  deps: {
    banks: BanksService;
    merchantAuth: preValidationAsyncHookHandler;
    rateLimit: preHandlerAsyncHookHandler;
  },
) {
  app.get(
    '/merchant/banks',
    {
      preValidation: deps.merchantAuth,
      preHandler: deps.rateLimit,
      schema: {
        tags: ['merchant'],
        summary: 'Banks usable for payouts (payout_details.methodName takes a name)',
        headers: MerchantHeaders,
        response: {
          200: Type.Object({ success: Type.Literal(true), count: Type.Integer(), data: Type.Array(Bank) }),
          ...errorResponses,
        },
      },
    },
    async () => {
      const rows = await deps.banks.listEnabled();
      return {
        success: true as const,
        count: rows.length,
        data: rows.map((b) => ({ code: b.code, name: b.name })),
      };
    },
  );
}

const adminBankView = (b: BankRow) => {
  const sources = bankSourcesOf(b);
  return {
    code: b.code,
    name: b.name,
    enabled: b.enabled,
    sbp: b.sbp,
    card: b.card,
    sms_senders: sources.smsSenders,
    app_packages: sources.appPackages,
    messages_read: sources.readable,
  };
};

/** Admin: list, add, enable/disable banks. */
export function banksAdminRoutes(app: App, deps: { banks: BanksService }) {
  app.get(
    '/admin/banks',
    {
      schema: {
        tags: ['admin'],
        response: { 200: Envelope(Type.Array(AdminBankSchema)), ...errorResponses },
      },
    },
    async () => ({ success: true as const, data: (await deps.banks.listAll()).map(adminBankView) }),
  );
  app.post(
    '/admin/banks',
    {
      schema: {
        tags: ['admin'],
        body: Type.Object({
          code: Type.String(),
          name: Type.String({ minLength: 1, maxLength: 100 }),
          sbp: Type.Optional(Type.Boolean()),
          card: Type.Optional(Type.Boolean()),
          sms_senders: Type.Optional(
            Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
          ),
          app_packages: Type.Optional(
            Nullable(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.]{3,128}$' }), { maxItems: 50 })),
          ),
        }),
        response: { 200: Envelope(AdminBankSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: adminBankView(await deps.banks.add(request.body, actorOf(request))),
    }),
  );
  app.patch(
    '/admin/banks/:code',
    {
      schema: {
        tags: ['admin'],
        params: Type.Object({ code: Type.String({ maxLength: 32 }) }),
        body: Type.Object({
          enabled: Type.Optional(Type.Boolean()),
          sbp: Type.Optional(Type.Boolean()),
          card: Type.Optional(Type.Boolean()),
          sms_senders: Type.Optional(
            Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
          ),
          app_packages: Type.Optional(
            Nullable(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.]{3,128}$' }), { maxItems: 50 })),
          ),
        }),
        response: { 200: Envelope(AdminBankSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: adminBankView(await deps.banks.update(request.params.code, request.body, actorOf(request))),
    }),
  );
}

import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import type { MerchantsService } from '../../modules/merchants/index.js';
import { PORTAL_ROLES, type PortalUsers } from './portal-users.js';

/**
 * Operators invite a merchant's people to the portal (docs/decisions.md section 28):
 * `POST /admin/merchants/{merchant_id}/users {email, role}` answers the one-time link (72 h);
 * `GET` lists the accounts.
 */
export function portalAdminRoutes(
  app: App,
  deps: { users: PortalUsers; merchants: MerchantsService; publicBaseUrl: string },
) {
  const Params = Type.Object({ merchant_id: Type.String({ maxLength: 100 }) });
  app.post(
    '/admin/merchants/:merchant_id/users',
    {
      schema: {
        tags: ['admin'],
        summary: 'Invite a person to the merchant portal: a one-time link (72 h)',
        params: Params,
        body: Type.Object({
          email: Type.String({ maxLength: 254 }),
          role: Type.Union(PORTAL_ROLES.map((r) => Type.Literal(r))),
        }),
        response: {
          200: Envelope(
            Type.Object({
              email: Type.String(),
              role: Type.String(),
              invite_url: Type.String(),
              expires_at: Type.String(),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await deps.merchants.get(request.params.merchant_id);
      const invite = await deps.users.invite(request.params.merchant_id, request.body, actorOf(request));
      return {
        success: true as const,
        data: {
          email: invite.email,
          role: invite.role,
          invite_url: `${deps.publicBaseUrl}/portal/invite/${invite.code}`,
          expires_at: invite.expires_at,
        },
      };
    },
  );
  app.get(
    '/admin/merchants/:merchant_id/users',
    {
      schema: {
        tags: ['admin'],
        summary: "The merchant's portal accounts",
        params: Params,
        response: {
          200: Envelope(
            Type.Array(
              Type.Object({
                email: Type.String(),
                role: Type.String(),
                totp: Type.Boolean(),
                enabled: Type.Boolean(),
                last_login_at: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ success: true as const, data: await deps.users.list(request.params.merchant_id) }),
  );
}

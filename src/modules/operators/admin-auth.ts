import type { preValidationAsyncHookHandler } from 'fastify';
import { bearerToken } from '../../http/bearer.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/secrets.js';
import type { OperatorsService } from './operators-service.js';
import { can, permissionForAdminRoute } from './permissions.js';

/**
 * Authenticates the admin API: `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time, acts
 * as an admin) or an operator's API token (acts with the operator's role), then checks the role
 * against the route. Sets `request.adminActor` for the audit trail. Throws UNAUTHORIZED (401),
 * FORBIDDEN (403), INVALID_JSON (400).
 */
export function createAdminAuth(deps: {
  adminToken: string;
  operators: OperatorsService;
}): preValidationAsyncHookHandler {
  return async function adminAuth(request) {
    const token = bearerToken(request);
    let actor: AdminActor | undefined;
    if (token && safeEqual(token, deps.adminToken)) {
      actor = { name: 'admin-token', ip: request.ip, role: 'admin' };
    } else if (token.startsWith('op_')) {
      const op = await deps.operators.byApiToken(token, request.ip);
      if (op) actor = { name: `operator:${op.username}`, ip: request.ip, role: op.role };
    }
    if (!actor) throw new AppError('UNAUTHORIZED');
    const allowed = permissionForAdminRoute(request.method, request.routeOptions.url ?? request.url);
    if (!allowed.some((p) => can(actor.role ?? 'viewer', p))) throw new AppError('FORBIDDEN');
    request.adminActor = actor;
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
    // An admin POST without a body means "no options" (e.g. confirm), not a malformed request.
    if (request.body === undefined && request.method === 'POST') request.body = {};
  };
}

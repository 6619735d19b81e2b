import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/secrets.js';

/**
 * Authenticates the admin API: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
 * Sets `request.adminActor` for the audit trail. Throws UNAUTHORIZED (401), INVALID_JSON (400).
 */
export function createAdminAuth(adminToken: string): preValidationAsyncHookHandler {
  return async function adminAuth(request) {
    const value = request.headers.authorization;
    const token = typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7).trim() : '';
    if (!token || !safeEqual(token, adminToken)) throw new AppError('UNAUTHORIZED');
    request.adminActor = { name: 'admin-token', ip: request.ip };
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
    // An admin POST without a body means "no options" (e.g. confirm), not a malformed request.
    if (request.body === undefined && request.method === 'POST') request.body = {};
  };
}

/** The acting operator of an admin request; only valid behind the admin auth hook. */
export function actorOf(request: FastifyRequest): AdminActor {
  if (!request.adminActor) throw new AppError('UNAUTHORIZED');
  return request.adminActor;
}

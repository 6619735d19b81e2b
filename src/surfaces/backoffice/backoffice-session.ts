import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { randomToken, safeEqual } from '../../lib/secrets.js';
import type { OperatorRow, OperatorsService } from '../../modules/operators/index.js';
import { can, type Permission } from '../../modules/operators/index.js';

export const SESSION_COOKIE = 'bo_session';
export const LOGIN_CSRF_COOKIE = 'bo_login_csrf';
/** The page an operator who owes a second factor is held on. */
export const ENROL_PATH = '/backoffice/account/two-factor';

/** The signed-in operator of a console request. */
export interface ConsoleUser {
  operator: OperatorRow;
  csrf: string;
  /** The session's public id (its row), for "this session" on the sessions page. */
  sessionId: string;
  actor: AdminActor;
  can: (permission: Permission) => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleUser?: ConsoleUser;
  }
}

/** Cookie options: HttpOnly, SameSite=Strict, Secure when the request came over TLS (docs/api.md "Operator console"). */
export function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/backoffice',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https',
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** A fresh login-form CSRF token, set as a cookie and returned for the hidden field (double submit). */
export function issueLoginCsrf(request: FastifyRequest, reply: FastifyReply): string {
  const token = randomToken(16);
  void reply.setCookie(LOGIN_CSRF_COOKIE, token, cookieOptions(request, 600));
  return token;
}

/** Checks the login form's CSRF field against its cookie. */
export function checkLoginCsrf(request: FastifyRequest, field: unknown): boolean {
  const cookie = request.cookies[LOGIN_CSRF_COOKIE];
  return (
    typeof cookie === 'string' && typeof field === 'string' && field.length > 0 && safeEqual(cookie, field)
  );
}

/**
 * Loads the session of a console request into `request.consoleUser`; without one the browser is sent
 * to the login page. Returns false when it redirected.
 */
export async function loadSession(
  request: FastifyRequest,
  reply: FastifyReply,
  operators: OperatorsService,
): Promise<boolean> {
  const token = request.cookies[SESSION_COOKIE];
  const session = token ? await operators.session(token, request.ip) : undefined;
  if (!session) {
    await reply.redirect('/backoffice/login');
    return false;
  }
  const { operator, csrf, sessionId } = session;
  // A money-moving role that has not enrolled its second factor may only enrol (docs/decisions.md section 32).
  const path = request.url.split('?')[0] ?? '';
  if (session.scope === 'enrol' && path !== ENROL_PATH && path !== '/backoffice/logout') {
    await reply.redirect(ENROL_PATH, 303);
    return false;
  }
  request.consoleUser = {
    operator,
    csrf,
    sessionId,
    actor: { name: `operator:${operator.username}`, ip: request.ip, role: operator.role },
    can: (permission) => can(operator.role, permission),
  };
  return true;
}

/** The console user; only valid after `loadSession`. */
export function userOf(request: FastifyRequest): ConsoleUser {
  if (!request.consoleUser) throw new AppError('UNAUTHORIZED');
  return request.consoleUser;
}

/** Refuses a form post whose `_csrf` field is not the session's token (403 FORBIDDEN). */
export function checkCsrf(request: FastifyRequest, field: unknown): void {
  const user = userOf(request);
  if (typeof field !== 'string' || !safeEqual(field, user.csrf)) throw new AppError('FORBIDDEN');
}

/** Refuses when the operator's role lacks `permission` (403 FORBIDDEN). */
export function requirePermission(request: FastifyRequest, permission: Permission): ConsoleUser {
  const user = userOf(request);
  if (!user.can(permission)) throw new AppError('FORBIDDEN');
  return user;
}

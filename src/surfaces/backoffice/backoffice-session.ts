import type { FastifyRequest } from 'fastify';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/secrets.js';
import type { OperatorRow, OperatorsService } from '../../modules/operators/index.js';
import { can, type Permission } from '../../modules/operators/index.js';
import { createSessionStack, type SessionStack } from '../../platform/sessions/index.js';

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
  /** `enrol` while a money-moving role still owes its second factor. */
  scope: 'full' | 'enrol';
  actor: AdminActor;
  can: (permission: Permission) => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleUser?: ConsoleUser;
  }
}

export type ConsoleSessions = SessionStack<ConsoleUser>;

/**
 * The console's sessions on the shared stack (docs/architecture.md "Session stack"): cookie
 * `bo_session` on `/backoffice` over the `operator_sessions` rows, a double-submit token on the
 * sign-in form, and a money-moving role that has not enrolled its second factor held on the
 * enrolment page (docs/decisions.md section 32).
 */
export function consoleSessions(operators: OperatorsService): ConsoleSessions {
  return createSessionStack<ConsoleUser>({
    path: '/backoffice',
    cookie: SESSION_COOKIE,
    loginPath: '/backoffice/login',
    loginRedirectStatus: 302,
    loginCsrfCookie: LOGIN_CSRF_COOKIE,
    async load(token, request) {
      const session = await operators.session(token, request.ip);
      if (!session) return undefined;
      const { operator, csrf, sessionId, scope } = session;
      return {
        operator,
        csrf,
        sessionId,
        scope,
        actor: { name: `operator:${operator.username}`, ip: request.ip, role: operator.role },
        can: (permission: Permission) => can(operator.role, permission),
      };
    },
    csrfOf: (user) => user.csrf,
    holdAt: (user, path) =>
      user.scope === 'enrol' && path !== ENROL_PATH && path !== '/backoffice/logout' ? ENROL_PATH : null,
    remember(request, user) {
      request.consoleUser = user;
    },
  });
}

/** The console user; only valid inside the guarded pages. */
export function userOf(request: FastifyRequest): ConsoleUser {
  if (!request.consoleUser) throw new AppError('UNAUTHORIZED');
  return request.consoleUser;
}

/** Refuses when the operator's role lacks `permission` (403 FORBIDDEN). */
export function requirePermission(request: FastifyRequest, permission: Permission): ConsoleUser {
  const user = userOf(request);
  if (!user.can(permission)) throw new AppError('FORBIDDEN');
  return user;
}

/**
 * A route hook that checks the role's `permission` before the route's schema and handler (after the
 * session guard): "a role's permission is checked before anything else an action does".
 */
export function needs(permission: Permission) {
  return async (request: FastifyRequest): Promise<void> => {
    requirePermission(request, permission);
  };
}

/**
 * Refuses a `_csrf` field that is not the session's token (403 FORBIDDEN). The session guard checks
 * every urlencoded post already; this is for fields read from multipart parts.
 */
export function checkCsrf(request: FastifyRequest, field: unknown): void {
  const user = userOf(request);
  if (typeof field !== 'string' || !safeEqual(field, user.csrf)) throw new AppError('FORBIDDEN');
}

/** As `needs`, for an action that one of `permissions` allows (which one is decided by what it acts on). */
export function needsAny(permissions: Permission[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const user = userOf(request);
    if (!permissions.some((p) => user.can(p))) throw new AppError('FORBIDDEN');
  };
}

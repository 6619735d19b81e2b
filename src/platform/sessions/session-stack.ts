import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { randomToken, safeEqual } from '../../lib/secrets.js';

/**
 * How one surface with people signing in (the console, the portal) keeps its sessions
 * (docs/architecture.md "Session stack"): the cookie's name and path, the sign-in page, and how a
 * token becomes the surface's user. The store stays the surface's module's own table (revocable,
 * listed, ended by an admin), so the stack only needs `load`.
 */
export interface SessionStackOptions<User> {
  /** The surface's path prefix; every cookie of the stack is scoped to it (`/backoffice`, `/portal`). */
  path: string;
  /** The session cookie's name. */
  cookie: string;
  /** Where a browser without a session is sent (303). */
  loginPath: string;
  /** The status of that redirect (the console answers 302, the portal 303, as before the stack). */
  loginRedirectStatus?: 302 | 303;
  /** The double-submit cookie of the sign-in form, when the surface protects that form. */
  loginCsrfCookie?: string;
  /** The user of a session token from this request, or undefined (unknown, expired, revoked, disabled). */
  load(token: string, request: FastifyRequest): Promise<User | undefined>;
  /** The session's synchronizer CSRF token (kept in the session's row). */
  csrfOf(user: User): string;
  /** Also hands the loaded user to the surface's own helpers (e.g. `request.consoleUser`). */
  remember?(request: FastifyRequest, user: User): void;
  /**
   * Where a user must stay, or null: a session that owes a second factor may only enrol
   * (docs/decisions.md section 32). `path` is the request's path without its query.
   */
  holdAt?(user: User, path: string): string | null;
}

/** The cookie attributes every session cookie has: HttpOnly, SameSite=Strict, the surface's path, Secure over TLS. */
export interface SessionCookieOptions {
  path: string;
  httpOnly: true;
  sameSite: 'strict';
  secure: boolean;
  maxAge?: number;
}

/** A route's opt-out of the body check: its CSRF field arrives in multipart parts, which the route checks. */
export interface SessionRouteConfig {
  csrfInParts?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its `_csrf` field from multipart parts and checks it itself (SessionRouteConfig). */
    csrfInParts?: boolean;
  }
}

/**
 * The attributes of every cookie a surface with sessions sets: HttpOnly, SameSite=Strict, the
 * surface's `path`, Secure when the request came over TLS (TRUST_PROXY decides what that means).
 */
export function sessionCookieOptions(
  path: string,
  request: FastifyRequest,
  maxAgeSeconds?: number,
): SessionCookieOptions {
  return {
    path,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The `_csrf` field of a parsed form body (undefined for no body, multipart, or another shape). */
function csrfField(body: unknown): unknown {
  return typeof body === 'object' && body !== null && '_csrf' in body ? body._csrf : undefined;
}

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? '';

/**
 * One implementation of sessions and CSRF for every surface people sign in to (docs/architecture.md
 * "Session stack"): cookie attributes, opening and closing a session cookie, the guard that loads the
 * session (else redirects to the sign-in page), the synchronizer-token check of every form post, and
 * the double-submit token of the sign-in form. Built on @fastify/cookie; the surface registers it and
 * @fastify/formbody in its scope (`registerFormScope`).
 */
export function createSessionStack<User>(options: SessionStackOptions<User>) {
  const users = new WeakMap<FastifyRequest, User>();

  const cookieOptions = (request: FastifyRequest, maxAgeSeconds?: number) =>
    sessionCookieOptions(options.path, request, maxAgeSeconds);

  /** The signed-in user; UNAUTHORIZED outside the guarded scope. */
  function userOf(request: FastifyRequest): User {
    const user = users.get(request);
    if (user === undefined) throw new AppError('UNAUTHORIZED');
    return user;
  }

  /** Refuses (403 FORBIDDEN) a `_csrf` field that is not the session's token. */
  function checkCsrf(request: FastifyRequest, field: unknown): User {
    const user = userOf(request);
    if (typeof field !== 'string' || !safeEqual(field, options.csrfOf(user))) throw new AppError('FORBIDDEN');
    return user;
  }

  /** Loads the session into the request; false (after a redirect) when there is none or it is held. */
  async function load(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const token = request.cookies[options.cookie];
    const user = token ? await options.load(token, request) : undefined;
    if (user === undefined) {
      await reply.redirect(options.loginPath, options.loginRedirectStatus ?? 303);
      return false;
    }
    const hold = options.holdAt?.(user, pathOf(request)) ?? null;
    if (hold !== null) {
      await reply.redirect(hold, 303);
      return false;
    }
    users.set(request, user);
    options.remember?.(request, user);
    return true;
  }

  /**
   * The guard of the signed-in pages, a preValidation hook: the session is loaded, then every POST's
   * `_csrf` field is checked, before any route hook (a role's permission), schema or handler runs.
   */
  const guard: preValidationAsyncHookHandler = async function sessionGuard(request, reply) {
    if (!(await load(request, reply))) return reply;
    if (request.method !== 'POST') return;
    if ((request.routeOptions.config as SessionRouteConfig | undefined)?.csrfInParts) return;
    checkCsrf(request, csrfField(request.body));
  };

  return {
    cookieOptions,
    userOf,
    /** The user when the request is signed in (error pages), else undefined. */
    current: (request: FastifyRequest): User | undefined => users.get(request),
    checkCsrf,
    load,
    guard,
    /** The session cookie's token, if sent. */
    tokenOf: (request: FastifyRequest): string | undefined => request.cookies[options.cookie],
    /** Sets the session cookie after a sign-in. */
    open(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
      if (options.loginCsrfCookie) void reply.clearCookie(options.loginCsrfCookie, cookieOptions(request));
      void reply.setCookie(options.cookie, token, cookieOptions(request, maxAgeSeconds));
    },
    /**
     * Signs out: a live session's form must carry its CSRF token (else 403), then `end(token)` drops
     * the session's row; the cookie is cleared either way (a stale cookie signs out too).
     */
    async signOut(
      request: FastifyRequest,
      reply: FastifyReply,
      field: unknown,
      end: (token: string) => Promise<void>,
    ): Promise<void> {
      const token = request.cookies[options.cookie];
      const user = token ? await options.load(token, request) : undefined;
      if (token && user !== undefined) {
        users.set(request, user);
        options.remember?.(request, user);
        checkCsrf(request, field);
        await end(token);
      }
      void reply.clearCookie(options.cookie, cookieOptions(request));
    },
    /** A fresh sign-in form token, set as a cookie (10 minutes) and returned for the hidden field. */
    issueLoginCsrf(request: FastifyRequest, reply: FastifyReply): string {
      const token = randomToken(16);
      if (options.loginCsrfCookie)
        void reply.setCookie(options.loginCsrfCookie, token, cookieOptions(request, 600));
      return token;
    },
    /** Whether the sign-in form's `_csrf` field matches its cookie (double submit). */
    checkLoginCsrf(request: FastifyRequest, field: unknown): boolean {
      const cookie = options.loginCsrfCookie ? request.cookies[options.loginCsrfCookie] : undefined;
      return (
        typeof cookie === 'string' &&
        typeof field === 'string' &&
        field.length > 0 &&
        safeEqual(cookie, field)
      );
    },
  };
}

export type SessionStack<User> = ReturnType<typeof createSessionStack<User>>;

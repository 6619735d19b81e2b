import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import type { FormFields } from '../../lib/form-fields.js';
import { chooseLang, type Lang } from '../../lib/language.js';
import {
  createSessionStack,
  type SessionStack,
  sessionCookieOptions,
} from '../../platform/sessions/index.js';
import { PORTAL_TEXTS } from './portal-texts.js';
import type { PortalUser, PortalUsers } from './portal-users.js';

/** Form fields and query strings as the portal reads them: one string per name (src/lib/form-fields.ts). */
export type Form = FormFields;

export const PORTAL_COOKIE = 'portal_session';
export const LANG_COOKIE = 'portal_lang';

declare module 'fastify' {
  interface FastifyRequest {
    portalUser?: PortalUser;
  }
}

/** HttpOnly, SameSite=Strict, path /portal, Secure over TLS: the shared stack's attributes. */
export function portalCookie(request: FastifyRequest, maxAgeSeconds?: number) {
  return sessionCookieOptions('/portal', request, maxAgeSeconds);
}

export type PortalSessions = SessionStack<PortalUser>;

/**
 * The portal's sessions on the shared stack (docs/architecture.md "Session stack"): cookie
 * `portal_session` on `/portal` over the `merchant_user_sessions` rows; without one, 303 to the
 * sign-in page.
 */
export function portalSessions(users: PortalUsers): PortalSessions {
  return createSessionStack<PortalUser>({
    path: '/portal',
    cookie: PORTAL_COOKIE,
    loginPath: '/portal/login',
    load: (token) => users.session(token),
    csrfOf: (user) => user.csrf,
    remember(request, user) {
      request.portalUser = user;
    },
  });
}

export function portalUserOf(request: FastifyRequest): PortalUser {
  if (!request.portalUser) throw new AppError('UNAUTHORIZED');
  return request.portalUser;
}

/** Refuses unless the user's role is one of `roles` (accountants read only; keys are the owner's). */
export function requireRole(request: FastifyRequest, ...roles: PortalUser['role'][]): PortalUser {
  const user = portalUserOf(request);
  if (!roles.includes(user.role)) throw new AppError('FORBIDDEN');
  return user;
}

/** A route hook: the user's role must be one of `roles`, checked before the route's schema and handler. */
export function allowRoles(...roles: PortalUser['role'][]) {
  return async (request: FastifyRequest): Promise<void> => {
    requireRole(request, ...roles);
  };
}

/** The page language (remembered in a cookie when chosen with `?lang=`). */
export function langOf(request: FastifyRequest, reply: FastifyReply): Lang {
  const q = (request.query as { lang?: unknown } | undefined)?.lang;
  const lang = chooseLang(q, request.cookies[LANG_COOKIE], request.headers['accept-language'], 'ru');
  if (q === 'ru' || q === 'en')
    void reply.setCookie(LANG_COOKIE, lang, { ...portalCookie(request, 31536000), httpOnly: false });
  return lang;
}

/** Renders a portal page in the layout with the catalogue, the user, CSRF token and flash message. */
export function renderPortal(
  request: FastifyRequest,
  reply: FastifyReply,
  page: string,
  data: Record<string, unknown>,
) {
  const lang = langOf(request, reply);
  const q = request.query as { msg?: string; error?: string } | undefined;
  const t = PORTAL_TEXTS[lang];
  return reply.type('text/html; charset=utf-8').view(page, {
    ...data,
    t,
    lang,
    user: request.portalUser ?? null,
    csrf: request.portalUser?.csrf ?? '',
    msg: q?.msg ?? null,
    error: q?.error ?? null,
    fmt: formatters(lang),
  });
}

/** `Intl` formatting for the chosen language: amounts with separators, dates in the browser's zone as UTC. */
export function formatters(lang: Lang) {
  const locale = lang === 'ru' ? 'ru-RU' : 'en-GB';
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium', timeZone: 'UTC' });
  return {
    amount: (value: string | number, currency: string) => {
      // A decimal string is formatted exactly (Intl.NumberFormat v3), never through a binary float.
      const n = String(value) as unknown as number;
      const digits = String(value).split('.')[1]?.length ?? 0;
      return `${new Intl.NumberFormat(locale, { minimumFractionDigits: Math.min(digits, 8), maximumFractionDigits: 8 }).format(n)} ${currency}`;
    },
    date: (iso: string | null | undefined) => (iso ? `${date.format(new Date(iso))} UTC` : '—'),
    /** A 0..1 ratio as a percentage: `42,5 %`. */
    percent: (ratio: number) =>
      new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio),
    /** Seconds as a duration in minutes and seconds (`3 min 20 s`), or a dash. */
    duration: (seconds: number | null) => {
      if (seconds === null) return '—';
      const unit = (u: 'minute' | 'second', n: number) =>
        new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'short' }).format(n);
      const m = Math.floor(seconds / 60);
      return m > 0 ? `${unit('minute', m)} ${unit('second', seconds % 60)}` : unit('second', seconds);
    },
  };
}

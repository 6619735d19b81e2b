import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseLang, fill, type Lang } from '../../lib/language.js';
import type { HolderUser, HolderUsers } from '../../modules/holders/index.js';
import {
  createSessionStack,
  type SessionStack,
  sessionCookieOptions,
} from '../../platform/sessions/index.js';
import { HOLDER_TEXTS } from './holder-texts.js';

export const HOLDER_COOKIE = 'holder_session';
export const LANG_COOKIE = 'holder_lang';
const PATH = '/holder';

export type HolderSessions = SessionStack<HolderUser>;

/**
 * The holder page's sessions on the shared stack (docs/architecture.md "Session stack"): cookie
 * `holder_session` on `/holder` over the holders module's `holder_user_sessions` rows; without one,
 * 303 to the sign-in page; the sign-in form has its double-submit token.
 */
export function holderSessions(users: HolderUsers): HolderSessions {
  return createSessionStack<HolderUser>({
    path: PATH,
    cookie: HOLDER_COOKIE,
    loginPath: `${PATH}/login`,
    loginCsrfCookie: 'holder_login_csrf',
    load: (token) => users.session(token),
    csrfOf: (user) => user.csrf,
  });
}

/** The page language (`?lang=` remembered in a cookie; else the browser's; else Russian). */
export function langOf(request: FastifyRequest, reply: FastifyReply): Lang {
  const q = (request.query as { lang?: unknown } | undefined)?.lang;
  const lang = chooseLang(q, request.cookies[LANG_COOKIE], request.headers['accept-language'], 'ru');
  if (q === 'ru' || q === 'en')
    void reply.setCookie(LANG_COOKIE, lang, {
      ...sessionCookieOptions(PATH, request, 31536000),
      httpOnly: false,
    });
  return lang;
}

/**
 * `Intl` formatting for the page language: amounts exactly from decimal strings (never a float),
 * times in Moscow time (the banks' and the holders' clock) with the zone named.
 */
export function formatters(lang: Lang) {
  const locale = lang === 'ru' ? 'ru-RU' : 'en-GB';
  const date = new Intl.DateTimeFormat(locale, {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'Europe/Moscow',
  });
  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone: 'Europe/Moscow' });
  return {
    amount: (value: string, currency: string) => {
      const digits = value.split('.')[1]?.length ?? 0;
      const n = new Intl.NumberFormat(locale, {
        minimumFractionDigits: Math.min(digits, 8),
        maximumFractionDigits: 8,
      }).format(value as unknown as number);
      return `${n} ${currency === 'RUB' ? '₽' : currency}`;
    },
    date: (iso: string | null | undefined) =>
      iso ? `${date.format(new Date(iso))} ${lang === 'ru' ? 'МСК' : 'MSK'}` : '—',
    time: (iso: string) => time.format(new Date(iso)),
  };
}

/** Renders a holder page in the layout with the catalogue, the user, the CSRF token and the flash. */
export function renderHolder(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: HolderSessions,
  page: string,
  data: Record<string, unknown>,
) {
  const lang = langOf(request, reply);
  const q = request.query as { msg?: string } | undefined;
  const user = sessions.current(request) ?? null;
  return reply.type('text/html; charset=utf-8').view(page, {
    ...data,
    t: HOLDER_TEXTS[lang],
    lang,
    fill,
    user,
    csrf: user?.csrf ?? '',
    msg: q?.msg ?? null,
    fmt: formatters(lang),
  });
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import type { FormFields } from '../../lib/form-fields.js';
import { chooseLang, type Lang } from '../../lib/language.js';
import { errorFlashText, failureText, flashText } from './console-messages.js';
import { CONSOLE_TEXTS, type ConsoleTexts, fill } from './console-texts.js';

/** Form fields and query strings as the console reads them: one string per name (src/lib/form-fields.ts). */
export type Form = FormFields;

/** The cookie that remembers the operator's language (a year; the console's paths only). */
const LANG_COOKIE = 'bo_lang';

/** The operator's language (docs/decisions.md section 32): `?lang=` (then remembered), the cookie, the browser's. */
export function consoleLangOf(request: FastifyRequest, reply: FastifyReply): Lang {
  const query = (request.query as { lang?: unknown } | undefined)?.lang;
  // The console's fallback is English (docs/decisions.md section 32); every surface shares the rule.
  const lang = chooseLang(query, request.cookies?.[LANG_COOKIE], request.headers['accept-language'], 'en');
  if (query === 'en' || query === 'ru') void reply.setCookie(LANG_COOKIE, lang, preferenceCookie(request));
  return lang;
}

/** A remembered preference of the operator (language, time zone): a year, the console's paths only. */
export function preferenceCookie(request: FastifyRequest) {
  return {
    path: '/backoffice',
    maxAge: 31_536_000,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https',
  };
}

/** The time zones an operator may read times in (docs/decisions.md section 32); times are stored and hovered in UTC. */
export const TIME_ZONES = [
  'UTC',
  'Europe/Kaliningrad',
  'Europe/Moscow',
  'Europe/Samara',
  'Asia/Yekaterinburg',
  'Asia/Novosibirsk',
  'Asia/Vladivostok',
  'Asia/Almaty',
  'Asia/Tashkent',
  'Asia/Bishkek',
  'Asia/Dushanbe',
  'Europe/London',
] as const;
export const TZ_COOKIE = 'bo_tz';

/** `2026-11-25 13:05` in `timeZone` (an ISO 8601 UTC time in; the zone's name after it). */
export function timeIn(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** What the console needs of an order to name its state (the admin view, with its list or timeline extras). */
export interface OrderStateFacts {
  status: string;
  status_reason: string | null;
  direction?: string;
  /** Who moved it to `error` (the orders list's `ended_by`). */
  ended_by?: string | null;
  /** The timeline (the order page): the last move to `error` names who ended it. */
  events?: ReadonlyArray<{ to: string; actor: string }>;
}

/**
 * An order's state as operators read it (docs/decisions.md section 32): pending, success, expired, "cancelled by
 * operator:anna" (a PAYOUT: "failed, marked by ..."), or failed, then the reason; never a bare `error`.
 */
export function orderStateText(o: OrderStateFacts, t: ConsoleTexts): string {
  if (o.status !== 'error') return (t as Readonly<Record<string, string>>)[`st_${o.status}`] ?? o.status;
  if (o.status_reason === 'expired') return t.st_expired;
  const ender = o.ended_by ?? o.events?.filter((e) => e.to === 'error').at(-1)?.actor ?? null;
  const who = ender && ender !== 'system' ? ender : null;
  const head = who ? fill(o.direction === 'PAYOUT' ? t.failedBy : t.endedBy, { actor: who }) : t.st_failed;
  return o.status_reason ? `${head}: ${o.status_reason}` : head;
}

/** What every console view gets besides its own data: the catalogue, the language, `fill`, times. */
export function pageBasics(request: FastifyRequest, reply: FastifyReply) {
  const lang = consoleLangOf(request, reply);
  const chosen = request.cookies?.[TZ_COOKIE];
  const tz = TIME_ZONES.find((z) => z === chosen) ?? 'UTC';
  // The language links keep the page's own query (filters, status) and change only `lang`.
  const params = new URLSearchParams(
    (request.url.split('?')[1] ?? '').replace(/(^|&)(msg|error)(_\w+)?=[^&]*/g, ''),
  );
  const langHref = (to: Lang) => {
    params.set('lang', to);
    return `?${params.toString()}`;
  };
  /** A time as the operator reads it, with the exact UTC time on hover. */
  const when = (iso: string | null | undefined) =>
    iso
      ? `<time datetime="${iso}" title="${iso}">${timeIn(iso, tz)}${tz === 'UTC' ? ' UTC' : ''}</time>`
      : '—';
  const t = CONSOLE_TEXTS[lang];
  const state = (o: OrderStateFacts) => orderStateText(o, t);
  return { t, lang, fill, langHref, when, tz, state };
}

/** Renders a console page inside the layout, with the user, CSRF token and flash messages. */
export function render(
  request: FastifyRequest,
  reply: FastifyReply,
  page: string,
  data: Record<string, unknown>,
) {
  const user = request.consoleUser;
  const basics = pageBasics(request, reply);
  const q = (request.query ?? {}) as Form;
  return reply.type('text/html; charset=utf-8').view(page, {
    ...basics,
    ...data,
    user: user ? { username: user.operator.username, role: user.operator.role, can: user.can } : undefined,
    csrf: user?.csrf ?? '',
    msg: flashText(q, basics.t),
    // A page drawn again after a refusal (its typed values kept) names the failure itself.
    error:
      data.failure instanceof AppError ? failureText(data.failure, basics.t) : errorFlashText(q, basics.t),
  });
}

/** A form field, trimmed; undefined when empty. */
export const str = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** A payout account as an operator types it into a bank app: cards in fours, phones as +7 (XXX) XXX-XX-XX. */
export function accountText(account: string): string {
  if (/^\d{16,19}$/.test(account)) return (account.match(/.{1,4}/g) ?? [account]).join(' ');
  const phone = /^[78](\d{3})(\d{3})(\d{2})(\d{2})$/.exec(account);
  return phone ? `+7 (${phone[1]}) ${phone[2]}-${phone[3]}-${phone[4]}` : account;
}

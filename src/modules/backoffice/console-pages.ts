import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import type { FormFields } from '../../lib/form-fields.js';
import {
  CONSOLE_TEXTS,
  type ConsoleLang,
  type ConsoleTexts,
  fill,
  pickConsoleLang,
} from './console-texts.js';
import type { FlashKey } from './console-texts-setup-en.js';

/**
 * Title and text of the console's error page for an error code, in the operator's language: the
 * catalogue's `err_<CODE>` and `err_<CODE>_text` (`{seconds}`, `{detail}` filled), else the code.
 */
export function consoleErrorText(
  error: AppError,
  t: ConsoleTexts,
): { title: string; text: string; code: string } {
  const detail = error.details?.map((d) => `${d.field}: ${d.problem}`).join('; ');
  const texts = t as Readonly<Record<string, string>>;
  const key = `err_${error.code === 'ORDER_NOT_FOUND' ? 'NOT_FOUND' : error.code}`;
  const title = texts[key];
  if (!title) return { title: error.code, text: detail ?? t.err_refused, code: error.code };
  const text = fill(texts[`${key}_text`] ?? '', {
    seconds: error.headers?.['retry-after'] ?? '…',
    detail: detail ?? '',
  });
  return {
    title,
    text: error.code === 'VALIDATION_ERROR' && !detail ? t.err_VALIDATION_ERROR_field : text,
    code: error.code,
  };
}

/** Form fields and query strings as the console reads them: one string per name (src/lib/form-fields.ts). */
export type Form = FormFields;

/** The cookie that remembers the operator's language (a year; the console's paths only). */
const LANG_COOKIE = 'bo_lang';

/** The operator's language (issue 23 item 6): `?lang=` (then remembered), the cookie, the browser's. */
export function consoleLangOf(request: FastifyRequest, reply: FastifyReply): ConsoleLang {
  const query = (request.query as { lang?: unknown } | undefined)?.lang;
  const lang = pickConsoleLang(query, request.cookies?.[LANG_COOKIE], request.headers['accept-language']);
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

/** The time zones an operator may read times in (issue 23 item 4); times are stored and hovered in UTC. */
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
 * An order's state as operators read it (issue 23 item 3): pending, success, expired, "cancelled by
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
  const langHref = (to: ConsoleLang) => {
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

/**
 * The message after an action, in the operator's language: the catalogue's `flash_<msg>` with its
 * holes from `msg_<hole>` query fields; null for no message or one the catalogue does not have
 * (a link cannot make the console say words of its own).
 */
export function flashText(q: Form, t: ConsoleTexts): string | null {
  const texts = t as Readonly<Record<string, string>>;
  const text = q.msg && /^\w{1,40}$/.test(q.msg) ? texts[`flash_${q.msg}`] : undefined;
  if (!text) return null;
  const values = Object.fromEntries(
    Object.entries(q)
      .filter(([k, v]) => k.startsWith('msg_') && v !== undefined)
      .map(([k, v]) => [k.slice(4), String(v).slice(0, 200)]),
  );
  return fill(text, values);
}

/** The failure after an action: the error code's title and text (`error`, `error_field`, `error_problem`). */
export function errorFlashText(q: Form, t: ConsoleTexts): string | null {
  const code = q.error;
  if (!code || !/^[A-Z][A-Z_]{1,40}$/.test(code)) return null;
  const field = q.error_field?.slice(0, 80);
  const problem = q.error_problem?.slice(0, 200);
  return failureText(new AppError(code as never, field && problem ? [{ field, problem }] : undefined), t);
}

/** One line for a refused action: its code's title, then its text (naming the field). */
export function failureText(error: AppError, t: ConsoleTexts): string {
  const shown = consoleErrorText(error, t);
  const text = shown.text.trim();
  return text ? `${shown.title}. ${text}` : shown.title;
}

/**
 * Where a form may send the browser back to: a path inside the console (`/backoffice...`), never
 * another origin (`//evil`, `/\\evil`, `https:`), else `fallback`. Guards every `back` field.
 */
export function safeBack(value: string | undefined, fallback: string): string {
  if (!value) return fallback;
  // Only path characters (no backslash, no scheme), and no '//' that a browser could read as a host.
  return /^\/backoffice(?:[/?#][\w\-./?=&%#~:+,;@]*)?$/.test(value) && !value.includes('//')
    ? value
    : fallback;
}

/** What a form action says when it worked: a `flash_<key>` of the catalogue, with its holes. */
export type Flash = FlashKey | { key: FlashKey; values: Record<string, string> };

/** `back` with the flash message (`msg=<key>`, `msg_<hole>=<value>`) in its query. */
export function withFlash(back: string, flash: Flash): string {
  const params = new URLSearchParams();
  const { key, values } = typeof flash === 'string' ? { key: flash, values: {} } : flash;
  params.set('msg', key);
  for (const [hole, value] of Object.entries(values)) params.set(`msg_${hole}`, value);
  return `${back}${back.includes('?') ? '&' : '?'}${params.toString()}`;
}

/**
 * Runs a form action and redirects to `back` with its message, or with the error code it failed
 * with (`error`, and the first detail's `error_field` / `error_problem`); FORBIDDEN and other
 * errors are thrown on to the error page.
 */
export async function act(reply: FastifyReply, back: string, action: () => Promise<Flash>) {
  try {
    return reply.redirect(withFlash(back, await action()), 303);
  } catch (err) {
    if (err instanceof AppError && err.code !== 'FORBIDDEN') {
      const params = new URLSearchParams({ error: err.code });
      const first = err.details?.[0];
      if (first) {
        params.set('error_field', first.field);
        params.set('error_problem', first.problem);
      }
      return reply.redirect(`${back}${back.includes('?') ? '&' : '?'}${params.toString()}`, 303);
    }
    throw err;
  }
}

/** A form field, trimmed; undefined when empty. */
export const str = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** The actions that ask first; each has a title and its changes in the catalogue (`confirm_<kind>_...`). */
export type ConfirmKind =
  | 'rotateKey'
  | 'adjust'
  | 'disableRequisite'
  | 'resetMfa'
  | 'confirmPayin'
  | 'confirmLate'
  | 'confirmPayout'
  | 'cancelOrder';

/** What a confirmation page says before a destructive or money-moving action (issue 23 item 4). */
export interface Confirmation {
  kind: ConfirmKind;
  /** The holes of the catalogue's title and changes (ids, amounts, the reason typed). */
  values: Record<string, string>;
  /** Where "Cancel" goes (a console path). */
  back: string;
}

/**
 * Asks first: a post without `confirmed=yes` is answered with a page that shows what will change and
 * re-posts the same fields with `confirmed=yes`; the action runs only then. Returns the page's
 * answer, or null when the post is confirmed.
 */
export function confirmFirst(
  request: FastifyRequest,
  reply: FastifyReply,
  form: Form,
  confirmation: Confirmation,
) {
  if (form.confirmed === 'yes') return null;
  const fields = Object.entries(form).filter(
    ([k, v]) => k !== '_csrf' && k !== 'confirmed' && v !== undefined,
  );
  return render(request, reply, 'confirm.eta', {
    ...confirmation,
    back: safeBack(confirmation.back, '/backoffice'),
    action: request.url.split('?')[0],
    fields,
  });
}

/** A payout account as an operator types it into a bank app: cards in fours, phones as +7 (XXX) XXX-XX-XX. */
export function accountText(account: string): string {
  if (/^\d{16,19}$/.test(account)) return (account.match(/.{1,4}/g) ?? [account]).join(' ');
  const phone = /^[78](\d{3})(\d{3})(\d{2})(\d{2})$/.exec(account);
  return phone ? `+7 (${phone[1]}) ${phone[2]}-${phone[3]}-${phone[4]}` : account;
}

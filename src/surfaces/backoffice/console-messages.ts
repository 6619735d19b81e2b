import type { FastifyReply } from 'fastify';
import { AppError } from '../../lib/errors.js';
import type { FormFields } from '../../lib/form-fields.js';
import { type ConsoleTexts, fill } from './console-texts.js';
import type { FlashKey } from './console-texts-setup-en.js';

// What the console says about an action: the one-line message after it (a catalogue key, never
// words from a link) and the text of a refusal or error, in the operator's language.

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

/**
 * The message after an action, in the operator's language: the catalogue's `flash_<msg>` with its
 * holes from `msg_<hole>` query fields; null for no message or one the catalogue does not have
 * (a link cannot make the console say words of its own).
 */
export function flashText(q: FormFields, t: ConsoleTexts): string | null {
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
export function errorFlashText(q: FormFields, t: ConsoleTexts): string | null {
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

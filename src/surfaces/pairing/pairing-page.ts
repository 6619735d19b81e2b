import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseLang, fill, isLang, type Lang } from '../../lib/language.js';
import type { PairingPreview } from '../../rails/devices/index.js';
import { PAIRING_TEXTS, type PairingTexts } from './pairing-texts.js';

/** The cookie that remembers the holder's language choice (a year; the pairing pages only). */
const LANG_COOKIE = 'pairing_lang';
const COOKIE_PATH = '/devices/pair';

/**
 * Strict CSP: no script at all, our own stylesheet, the QR as a data: image, forms posting to
 * ourselves only, never framed (docs/decisions.md "The pairing page").
 */
export const PAIRING_CSP =
  "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The page language: `?lang=` (then remembered), the claim form's `lang`, the remembered choice,
 * Accept-Language, Russian (src/lib/language.ts).
 */
export function pageLang(request: FastifyRequest, reply: FastifyReply, bodyLang?: string): Lang {
  const query = (request.query as { lang?: unknown } | undefined)?.lang;
  const chosen = isLang(query) ? query : bodyLang;
  const lang = chooseLang(chosen, request.cookies[LANG_COOKIE], request.headers['accept-language'], 'ru');
  if (isLang(query))
    void reply.setCookie(LANG_COOKIE, lang, {
      path: COOKIE_PATH,
      maxAge: 31_536_000,
      sameSite: 'lax',
      httpOnly: true,
      secure: request.protocol === 'https',
    });
  return lang;
}

/**
 * Whether the client asked for JSON: an Accept that ranks `application/json` above `text/html`
 * (a browser, a link preview and `*\/*` get the page), or a JSON body.
 */
export function wantsJson(request: FastifyRequest): boolean {
  if (String(request.headers['content-type'] ?? '').startsWith('application/json')) return true;
  const weight = (type: string) => {
    for (const part of String(request.headers.accept ?? '')
      .toLowerCase()
      .split(',')) {
      const [media = '', ...params] = part.trim().split(';');
      if (media.trim() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return q ? Number(q.slice(2)) || 0 : 1;
    }
    return 0;
  };
  const json = weight('application/json');
  return json > 0 && json > weight('text/html');
}

/** The QR of the page's own address: a phone's camera opens the same (unspent) page. */
export async function pageQr(pageUrl: string): Promise<string> {
  const QRCode = (await import('qrcode')).default;
  const svg = await QRCode.toString(pageUrl, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** `YYYY-MM-DD HH:MM` of an ISO time, in UTC (the page says so). */
const utcMinute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** What both pages share: the language, its catalogue, the other language's link. */
export function basics(lang: Lang, path: string) {
  const t: PairingTexts = PAIRING_TEXTS[lang];
  const other: Lang = lang === 'ru' ? 'en' : 'ru';
  return { lang, t, other, switchUrl: `${path}?lang=${other}` };
}

/** The unclaimed link's page data: requisites with their ending fields, the apps' addresses, the QR. */
export async function previewData(preview: PairingPreview, lang: Lang, path: string, pageUrl: string) {
  const b = basics(lang, path);
  return {
    ...b,
    p: preview,
    intro: fill(b.t.intro, { name: preview.name }),
    expires: fill(b.t.expires, { time: utcMinute(preview.expires_at) }),
    kindOf: (kind: string) => (b.t as Record<string, string>)[`kind_${kind}`] ?? kind,
    known: (masks: string[]) => fill(b.t.endingKnown, { masks: masks.join(', ') }),
    qr: await pageQr(pageUrl),
    action: path,
  };
}

/** The claimed link's page data: every app's settings to copy, once. */
export function setupData(
  claim: { name: string; setup: Record<string, unknown>; endings: Array<{ mask: string }> },
  lang: Lang,
  path: string,
) {
  const b = basics(lang, path);
  return {
    ...b,
    s: claim.setup,
    title: fill(b.t.setupTitle, { name: claim.name }),
    saved: claim.endings.length
      ? fill(b.t.endingsSaved, { list: claim.endings.map((e) => e.mask).join(', ') })
      : null,
    headers: (h: Record<string, string>) =>
      Object.entries(h)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
  };
}

/** A refusal's title and words in the holder's language, by error code. */
export function refusalText(code: string, status: number, t: PairingTexts) {
  if (code === 'PAIRING_LINK_USED') return { title: t.usedTitle, text: t.usedText, back: false };
  if (code === 'PAIRING_LINK_EXPIRED') return { title: t.expiredTitle, text: t.expiredText, back: false };
  if (code === 'NOT_FOUND') return { title: t.notFoundTitle, text: t.notFoundText, back: false };
  if (code === 'VALIDATION_ERROR') return { title: t.badEndingTitle, text: t.badEndingText, back: true };
  if (status === 429) return { title: t.tooManyTitle, text: t.tooManyText, back: true };
  return { title: t.errorTitle, text: t.errorText, back: true };
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { errorBody, logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import { type App, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { chooseLang } from '../../lib/language.js';
import type { FormService } from './form-service.js';
import { FORM_TEXTS, type FormTexts, type Lang, scriptTexts } from './form-texts.js';
import { formView } from './form-view.js';

/** The cookie that remembers the payer's language choice (a year; the form's paths only). */
const LANG_COOKIE = 'form_lang';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// A Map, not an object: a name such as `__proto__` or `constructor` must find nothing.
const ASSETS = new Map<string, { body: Buffer; type: string }>([
  ['form.css', { body: readFileSync(here('./assets/form.css')), type: 'text/css; charset=utf-8' }],
  ['form.js', { body: readFileSync(here('./assets/form.js')), type: 'text/javascript; charset=utf-8' }],
]);

/**
 * Content-Security-Policy of the form: no inline script, only our own assets and data: QR images,
 * plus the one https origin of the merchant's logo when it has one (docs/decisions.md section 31).
 */
export function formCsp(frameAncestors: string, logoUrl: string | null = null): string {
  let logo = '';
  try {
    logo = logoUrl ? ` ${new URL(logoUrl).origin}` : '';
  } catch {
    // A logo URL is validated when set; one that does not parse adds nothing.
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${logo}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The payer's words for an appeal refused on a form post without JavaScript. */
function appealErrorText(code: string | undefined, t: FormTexts): string | null {
  if (!code) return null;
  if (/TOO_LARGE/.test(code)) return t.tooLarge;
  if (/FORMAT|MISMATCH/.test(code)) return t.badType;
  if (code === 'MODERATION_IN_PROGRESS') return t.appealBusy;
  return t.uploadFailed;
}

// Any length reaches the handler, so a malformed id gets the 404 page rather than a JSON error.
const IdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
const FormStatus = Type.Object({
  status: Type.String(),
  state: Type.Union(['pending', 'success', 'expired', 'failed'].map((s) => Type.Literal(s))),
  remainingSeconds: Type.Integer(),
  receiptStatus: Type.Union([Type.String(), Type.Null()]),
  cryptoAmount: Type.Union([Type.String(), Type.Null()]),
  receivedAmount: Type.Union([Type.String(), Type.Null()], {
    description: 'Crypto: received so far (a partial payment), in the coin',
  }),
});

/**
 * The page language: `?lang=` (then remembered in a cookie), the remembered choice, Accept-Language,
 * Russian (docs/decisions.md section 31).
 */
function langOf(request: FastifyRequest, reply: FastifyReply): Lang {
  const query = (request.query as { lang?: unknown } | undefined)?.lang;
  const q = typeof query === 'string' ? query : undefined;
  const lang = chooseLang(q, request.cookies[LANG_COOKIE], request.headers['accept-language'], 'ru');
  if (q === 'en' || q === 'ru') {
    void reply.setCookie(LANG_COOKIE, lang, {
      path: '/form',
      maxAge: 31_536_000,
      sameSite: 'lax',
      httpOnly: true,
      secure: request.protocol === 'https',
    });
  }
  return lang;
}

/** Whether an answer should be a page: the page itself, and a browser's form posts. */
function wantsPage(request: FastifyRequest): boolean {
  return request.method === 'GET'
    ? !request.url.includes('/status')
    : (request.headers.accept ?? '').includes('text/html');
}

/** What the form's routes are built from (routes.ts). */
interface FormRouteDeps {
  form: FormService;
  /** Reads and drops the payer's receipt upload. */
  uploads: UploadReader;
  frameAncestors: string;
  limits: {
    page: preHandlerAsyncHookHandler;
    status: preHandlerAsyncHookHandler;
    receipt: preHandlerAsyncHookHandler;
  };
}

/**
 * The payment form (docs/api.md "Payment form"): `GET /form/<id>` (HTML, ru/en), `GET /form/<id>/status`
 * (JSON, polled), `POST /form/<id>/receipt` (multipart `receipt`), and its two static assets. Strict
 * security headers; per-IP rate limits.
 */
export function formRoutes(app: App, deps: FormRouteDeps) {
  void app.register(async (scope: App) => {
    await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    securityHeaders(scope, formCsp(deps.frameAncestors));
    assetRoute(scope);
    await scope.register(cookie);
    errorPages(scope);
    pageRoutes(scope, deps);
    receiptRoute(scope, deps);
    appealRoute(scope, deps);
  });
}

/** The form's headers on every answer: its CSP (unless a page set its own), no referrer, no caching. */
function securityHeaders(scope: App, csp: string): void {
  scope.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
}

/** `GET /form/assets/<file>`: the page's stylesheet and script. */
function assetRoute(scope: App): void {
  scope.get(
    '/form/assets/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 20 }) }) } },
    async (request, reply) => {
      const asset = ASSETS.get(request.params.file);
      if (!asset) throw new AppError('NOT_FOUND');
      return reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=300')
        .send(asset.body);
    },
  );
}

/** A page that says what went wrong in the payer's language (never raw JSON: docs/decisions.md section 31). */
function messagePage(request: FastifyRequest, reply: FastifyReply, status: number) {
  const lang = langOf(request, reply);
  const t = FORM_TEXTS[lang];
  const [title, hint] =
    status === 404
      ? [t.notFound, t.notFoundHint]
      : status === 429
        ? [t.tooMany, t.tooManyHint]
        : [t.error, t.errorHint];
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .view('message.eta', {
      t,
      lang,
      title,
      hint,
      status,
      // Reload the page itself: a refused post goes back to the form it came from.
      reload:
        status === 404 ? null : request.method === 'GET' ? request.url : request.url.replace(/\/[^/?]*$/, ''),
    });
}

/** Errors as pages for the payer's browser (JSON for the polled status and scripts), and the 404 page. */
function errorPages(scope: App): void {
  scope.setErrorHandler(async (err, request, reply) => {
    const { error, kind } = resolveError(err);
    logFailure(request, err, kind);
    reply.headers(errorHeaders(error));
    if (wantsPage(request)) return messagePage(request, reply, error.status);
    return reply.status(error.status).send(errorBody(error.code, error.details));
  });
  // Any other address under /form/ is the 404 page, not the API's JSON envelope.
  scope.get('/form/*', { schema: { hide: true } }, async (request, reply) =>
    messagePage(request, reply, 404),
  );
}

/** `GET /form/<id>` (the page) and `GET /form/<id>/status` (what the page polls). */
function pageRoutes(scope: App, deps: FormRouteDeps): void {
  scope.get(
    '/form/:id',
    {
      preHandler: deps.limits.page,
      schema: {
        tags: ['form'],
        summary: 'The payment form page (HTML)',
        params: IdParams,
        querystring: Type.Object({
          lang: Type.Optional(Type.String({ maxLength: 5 })),
          appeal_error: Type.Optional(Type.String({ maxLength: 40 })),
          step: Type.Optional(
            Type.String({ maxLength: 10, description: '`waiting`: the "I have paid" screen' }),
          ),
        }),
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const lang = langOf(request, reply);
      const t = FORM_TEXTS[lang];
      const page = await deps.form.page(request.params.id);
      // A payer who sent a receipt is past paying: the page opens on the waiting step.
      const waiting =
        request.query.step === 'waiting' || (request.query.step !== 'pay' && page.receiptStatus !== null);
      if (page.logoUrl) reply.header('content-security-policy', formCsp(deps.frameAncestors, page.logoUrl));
      return reply.type('text/html; charset=utf-8').view('form.eta', {
        p: page,
        v: formView(page, t, lang),
        t,
        lang,
        step: waiting ? 'waiting' : 'pay',
        texts: JSON.stringify(scriptTexts(t)),
        appealError: appealErrorText(request.query.appeal_error, t),
      });
    },
  );

  scope.get(
    '/form/:id/status',
    {
      preHandler: deps.limits.status,
      schema: { tags: ['form'], params: IdParams, response: { 200: FormStatus, ...errorResponses } },
    },
    async (request) => deps.form.status(request.params.id),
  );
}

/** `POST /form/<id>/receipt`: the payer's receipt, multipart `receipt`. */
function receiptRoute(scope: App, deps: FormRouteDeps): void {
  scope.post(
    '/form/:id/receipt',
    {
      preHandler: deps.limits.receipt,
      schema: {
        tags: ['form'],
        summary: 'The payer uploads a receipt (multipart `receipt`), same rules as the merchant upload',
        params: IdParams,
        consumes: ['multipart/form-data'],
        response: {
          200: Type.Object({ success: Type.Literal(true), receiptStatus: Type.String() }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) {
        throw new AppError('RECEIPT_REQUIRED');
      }
      const upload = await deps.uploads.read(request.parts(), 'receipt');
      try {
        return { success: true as const, ...(await deps.form.uploadReceipt(request.params.id, upload)) };
      } finally {
        await deps.uploads.discard(upload);
      }
    },
  );
}

/** `POST /form/<id>/appeal`: the payer's late-payment claim; a browser's form post gets the page back. */
function appealRoute(scope: App, deps: FormRouteDeps): void {
  scope.post(
    '/form/:id/appeal',
    {
      preHandler: deps.limits.receipt,
      schema: {
        tags: ['form'],
        summary:
          'The payer says a failed order was paid: multipart `receipt` opens an appeal. A browser form post is answered 303 to the page',
        params: IdParams,
        consumes: ['multipart/form-data'],
        response: {
          200: Type.Object({ success: Type.Literal(true), appealStatus: Type.String() }),
          303: Type.Null(),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      // A plain HTML form (no JavaScript) gets the page back, with the error named in the URL.
      const html = (request.headers.accept ?? '').includes('text/html');
      const page = `/form/${encodeURIComponent(request.params.id)}`;
      try {
        if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data'))
          throw new AppError('RECEIPT_REQUIRED');
        const upload = await deps.uploads.read(request.parts(), 'receipt');
        try {
          const appeal = await deps.form.openAppeal(request.params.id, upload, request.ip);
          if (html) return reply.redirect(page, 303);
          return { success: true as const, appealStatus: appeal.status };
        } finally {
          await deps.uploads.discard(upload);
        }
      } catch (err) {
        if (!html || !(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
        return reply.redirect(`${page}?appeal_error=${err.code}`, 303);
      }
    },
  );
}

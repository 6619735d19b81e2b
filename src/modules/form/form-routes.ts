import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import type { FastifyReply, preHandlerAsyncHookHandler } from 'fastify';
import { MULTIPART_LIMITS, type UploadReader } from '../../http/multipart.js';
import { type App, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { pickLang, TEXTS } from './form-format.js';
import type { FormService } from './form-service.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// A Map, not an object: a name such as `__proto__` or `constructor` must find nothing.
const ASSETS = new Map<string, { body: Buffer; type: string }>([
  ['form.css', { body: readFileSync(here('./assets/form.css')), type: 'text/css; charset=utf-8' }],
  ['form.js', { body: readFileSync(here('./assets/form.js')), type: 'text/javascript; charset=utf-8' }],
]);

/** Content-Security-Policy of the form: no inline script, only our own assets and data: QR images. */
export function formCsp(frameAncestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The payer's words for an appeal refused on a form post without JavaScript. */
function appealErrorText(code: string | undefined, t: (typeof TEXTS)[keyof typeof TEXTS]): string | null {
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
});

/**
 * The payment form (issue 7): `GET /form/<id>` (HTML, ru/en), `GET /form/<id>/status` (JSON, polled),
 * `POST /form/<id>/receipt` (multipart `receipt`), and its two static assets. Strict security headers;
 * per-IP rate limits.
 */
export function formRoutes(
  app: App,
  deps: {
    form: FormService;
    /** Reads and drops the payer's receipt upload. */
    uploads: UploadReader;
    frameAncestors: string;
    limits: {
      page: preHandlerAsyncHookHandler;
      status: preHandlerAsyncHookHandler;
      receipt: preHandlerAsyncHookHandler;
    };
  },
) {
  const { form } = deps;
  const csp = formCsp(deps.frameAncestors);

  void app.register(async (scope: App) => {
    await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', csp);
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });

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

    const notFound = (reply: FastifyReply, lang: 'ru' | 'en') =>
      reply.status(404).type('text/html; charset=utf-8').view('not-found.eta', { t: TEXTS[lang], lang });

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
          }),
          produces: ['text/html'],
        },
      },
      async (request, reply) => {
        const lang = pickLang(request.query.lang, request.headers['accept-language']);
        let page: Awaited<ReturnType<FormService['page']>>;
        try {
          page = await form.page(request.params.id);
        } catch (err) {
          if (err instanceof AppError && err.code === 'NOT_FOUND') return notFound(reply, lang);
          throw err;
        }
        return reply.type('text/html; charset=utf-8').view('form.eta', {
          p: page,
          t: TEXTS[lang],
          lang,
          texts: JSON.stringify(TEXTS[lang]),
          appealError: appealErrorText(request.query.appeal_error, TEXTS[lang]),
          deadline: page.appeal
            ? new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', {
                dateStyle: 'medium',
                timeStyle: 'short',
                timeZone: 'Europe/Moscow',
              }).format(new Date(page.appeal.deadline_at))
            : null,
        });
      },
    );

    scope.get(
      '/form/:id/status',
      {
        preHandler: deps.limits.status,
        schema: { tags: ['form'], params: IdParams, response: { 200: FormStatus, ...errorResponses } },
      },
      async (request) => form.status(request.params.id),
    );

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
          return { success: true as const, ...(await form.uploadReceipt(request.params.id, upload)) };
        } finally {
          await deps.uploads.discard(upload);
        }
      },
    );

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
            const appeal = await form.openAppeal(request.params.id, upload, request.ip);
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
  });
}

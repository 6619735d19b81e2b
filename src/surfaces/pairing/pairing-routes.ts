import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { errorBody, logFailure } from '../../http/error-handler.js';
import { errorHeaders, resolveError } from '../../http/error-mapping.js';
import type { App } from '../../http/schemas.js';
import { errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { parseFormBody } from '../../lib/form-fields.js';
import { safeEqual } from '../../lib/secrets.js';
import type { DevicePairing } from '../../rails/devices/index.js';
import {
  basics,
  PAIRING_CSP,
  pageLang,
  previewData,
  refusalText,
  setupData,
  wantsJson,
} from './pairing-page.js';
import {
  ClaimBody,
  ENDING_FIELD,
  PageSchema,
  PairingClaimSchema,
  PairingParams,
  PairingPreviewSchema,
  PairingQuery,
} from './pairing-schemas.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CSS = readFileSync(here('./assets/pairing.css'));

/** What the pairing pages are built from (routes.ts). */
export interface PairingRouteDeps {
  pairing: DevicePairing;
  /** The service's public address: the QR carries the page's absolute URL. */
  publicBaseUrl: string;
  limits: { page: preHandlerAsyncHookHandler; claim: preHandlerAsyncHookHandler };
}

/**
 * The pairing link (docs/decisions.md "The pairing page"): `GET /devices/pair/<code>` is a page for
 * the holder's phone (or JSON for a client that asks for it) that neither spends the link nor shows
 * a secret; `POST /devices/pair/<code>` claims it once and shows every app's settings (or answers
 * them as JSON). Russian or English, no script, strict CSP, per-IP rate limits.
 */
export function pairingRoutes(app: App, deps: PairingRouteDeps) {
  void app.register(async (scope: App) => {
    await scope.register(cookie);
    // One string per field (src/lib/form-fields.ts): a repeated name is never a list.
    await scope.register(formbody, { parser: parseFormBody });
    await scope.register(view, { engine: { eta: new Eta() }, root: here('./views') });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', PAIRING_CSP);
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-robots-tag', 'noindex, nofollow');
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });
    scope.setErrorHandler(async (err, request, reply) => {
      const { error, kind } = resolveError(err);
      logFailure(request, err, kind);
      reply.headers(errorHeaders(error)).status(error.status);
      if (wantsJson(request)) return reply.send(errorBody(error.code, error.details));
      return refusalPage(request, reply, error.code);
    });
    scope.get('/devices/assets/pairing.css', { schema: { hide: true } }, async (_r, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(CSS),
    );
    pageRoute(scope, deps);
    claimRoute(scope, deps);
  });
}

const pathOf = (code: string) => `/devices/pair/${encodeURIComponent(code)}`;

function refusalPage(request: FastifyRequest, reply: FastifyReply, code: string) {
  const { code: link } = (request.params ?? {}) as { code?: string };
  const path = pathOf(link ?? '');
  // A refused claim answers in the language of the form it came from.
  const body: unknown = request.body;
  const bodyLang =
    body && typeof body === 'object' && 'lang' in body && typeof body.lang === 'string'
      ? body.lang
      : undefined;
  const b = basics(pageLang(request, reply, bodyLang), path);
  return reply
    .type('text/html; charset=utf-8')
    .view('message.eta', { ...b, ...refusalText(code, reply.statusCode, b.t), code, path });
}

/** `GET /devices/pair/<code>` (and HEAD): the link's page, or its JSON; never spends it. */
function pageRoute(scope: App, deps: PairingRouteDeps): void {
  scope.get(
    '/devices/pair/:code',
    {
      preHandler: deps.limits.page,
      schema: {
        tags: ['trader'],
        operationId: 'getPairingLink',
        summary:
          "The pairing link's page (or JSON): the device and its requisites; spends nothing, shows no secret",
        params: PairingParams,
        querystring: PairingQuery,
        produces: ['text/html', 'application/json'],
        response: { 200: Type.Union([PairingPreviewSchema, PageSchema]), ...errorResponses },
      },
    },
    async (request, reply) => {
      reply.header('vary', 'Accept, Accept-Language, Cookie');
      const preview = await deps.pairing.preview(request.params.code);
      if (wantsJson(request)) return { success: true as const, data: preview };
      const path = pathOf(request.params.code);
      const lang = pageLang(request, reply);
      const pageUrl = `${deps.publicBaseUrl.replace(/\/+$/, '')}${path}`;
      return reply.type('text/html; charset=utf-8').view('pairing.eta', {
        ...(await previewData(preview, lang, path, pageUrl)),
        code: request.params.code,
      });
    },
  );
}

/**
 * `POST /devices/pair/<code>`: the claim. A form post must repeat the code in its body and may not
 * come from another site (`Sec-Fetch-Site: cross-site`); a JSON post is preflighted by browsers.
 */
function claimRoute(scope: App, deps: PairingRouteDeps): void {
  scope.post(
    '/devices/pair/:code',
    {
      preHandler: deps.limits.claim,
      schema: {
        tags: ['trader'],
        operationId: 'claimPairingLink',
        summary: "Claims the pairing link once: every app's setup (page or JSON), the endings recorded",
        params: PairingParams,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: ClaimBody,
        response: { 200: Type.Union([PairingClaimSchema, PageSchema]), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      const json = wantsJson(request);
      if (!json) checkFormPost(request, code, request.body.code);
      const endings: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.body)) {
        const id = ENDING_FIELD.exec(name)?.[1];
        if (id && typeof value === 'string') endings[id] = value;
      }
      const claim = await deps.pairing.claim(code, endings, {
        ip: request.ip,
        userAgent: String(request.headers['user-agent'] ?? ''),
      });
      const recorded = claim.endings.map((e) => ({ requisite_id: e.id, mask: e.mask }));
      if (json) return { success: true as const, data: { ...claim.setup, endings: recorded } };
      const lang = pageLang(request, reply, request.body.lang);
      return reply.type('text/html; charset=utf-8').view('setup.eta', setupData(claim, lang, pathOf(code)));
    },
  );
}

/** A browser's claim: the body carries the link's code, and the post comes from our own page. */
function checkFormPost(request: FastifyRequest, code: string, bodyCode: string | undefined): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') throw new AppError('FORBIDDEN');
  if (bodyCode === undefined || !safeEqual(bodyCode, code)) throw new AppError('FORBIDDEN');
}

import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import { deferredSchemas, deferredSerializerFactory } from './deferred-schemas.js';
import { errorBody, plainErrorPage, registerErrorHandler } from './error-handler.js';
import { registerJsonBody } from './json-body.js';
import { type OpenApiExtras, openApiOptions } from './openapi.js';
import type { App } from './schemas.js';
import { createValidatorCompiler } from './validation.js';
import './request-context.js';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv as AuditAjv } from 'ajv';

// TEMPORARY schema audit (removed after the check).
function strictClone(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictClone);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, strictClone(pv)]));
    } else if (k === 'examples' || k === 'example') out[k] = v;
    else out[k] = strictClone(v);
  }
  if (out.type === 'object' && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
let auditAjv: AuditAjv | undefined;
const auditCache = new Map<unknown, ReturnType<AuditAjv['compile']>>();

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The Fastify instance every surface is registered on: body limits, the request id (the caller's
 * `x-request-id` when sane, echoed back), TRUST_PROXY, TypeBox validation without coercion of JSON
 * bodies, the OpenAPI document at /docs, the JSON body parser that keeps the raw bytes for
 * signatures, and the one error mapping. No routes. `extras` carries what the OpenAPI document shows
 * from the modules (the webhook body), which this layer does not import.
 */
export async function createHttpServer(
  config: Config,
  logger: FastifyServerOptions['logger'],
  extras: OpenApiExtras,
): Promise<App> {
  // Route schemas compile at their first use (http/deferred-schemas.ts): a start compiles none.
  const deferred = deferredSchemas();
  const validatorCompiler = createValidatorCompiler(deferred);
  const app = Fastify({
    logger,
    // Both compilers given here: Fastify then loads neither of its defaults (ajv) at start.
    // (Fastify types `buildValidator` as ajv's factory; a route schema compiler is what it calls.)
    schemaController: {
      compilersFactory: {
        buildValidator: () => validatorCompiler,
        buildSerializer: deferredSerializerFactory(deferred),
      },
    } as unknown as FastifyServerOptions['schemaController'],
    bodyLimit: config.bodyLimitBytes,
    // TRUST_PROXY: false, true, a hop count or proxy addresses (Fastify accepts each at run time).
    trustProxy: config.trustProxy as unknown as boolean,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false } },
    // Path ids up to the longest order_id (128) and more are routed and validated by their schemas.
    routerOptions: { maxParamLength: 512 },
    // Malformed URLs and over-long path parameters get the error envelope too (with a request id).
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'VALIDATION_ERROR' : 'NOT_FOUND';
      const body = errorBody(code);
      const r = reply as unknown as FastifyReply;
      // The pages (console, form, the pairing link) answer pages, the API its envelope.
      if (/^\/(backoffice|form|devices\/pair)(\/|$)/.test(request.url)) {
        void r.status(body.status).type('text/html; charset=utf-8').send(plainErrorPage(code));
      } else {
        void r.status(body.status).send(body);
      }
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;
  app.decorate('deferredSchemas', deferred);
  app.setValidatorCompiler(validatorCompiler);
  await app.register(swagger, openApiOptions(config.publicBaseUrl, extras));
  await app.register(swaggerUi, { routePrefix: '/docs' });
  registerJsonBody(app);
  registerErrorHandler(app);
  const auditLog = config.schemaAuditLog;
  if (auditLog) {
    app.addHook('preSerialization', async (request, reply, payload) => {
      if (reply.statusCode !== 200) return payload;
      const responses = (request.routeOptions.schema as { response?: Record<string, unknown> } | undefined)
        ?.response;
      const schema = responses?.['200'];
      if (!schema) return payload;
      let validate = auditCache.get(schema);
      if (!validate) {
        if (!auditAjv) {
          const require = createRequire(import.meta.url);
          auditAjv = new (require('ajv') as typeof import('ajv')).Ajv({ strict: false, allErrors: true });
          (require('ajv-formats') as (a: AuditAjv) => AuditAjv)(auditAjv);
        }
        validate = auditAjv.compile(JSON.parse(JSON.stringify(strictClone(schema))));
        auditCache.set(schema, validate);
      }
      const data = JSON.parse(JSON.stringify(payload));
      if (!validate(data)) {
        appendFileSync(
          auditLog,
          `${JSON.stringify({ route: `${request.method} ${request.routeOptions.url}`, errors: validate.errors })}\n`,
        );
      }
      return payload;
    });
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  return app;
}

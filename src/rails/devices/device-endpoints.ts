import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../http/bearer.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { IngestAnswerSchema, NativeAnswerSchema } from './device-endpoint-schemas.js';
import type { DeviceIngest, IngestAnswer } from './device-ingest-service.js';
import type { DeviceRow } from './devices-repository.js';
import { NativeBatch } from './native-batch.js';
import { readSmsForwarderBody } from './sms-forwarder-body.js';
import { EnvelopeError, readSmsGatewayEnvelope } from './sms-gateway-envelope.js';

/** Device bodies are small: one message, or a batch of at most 100 (docs/decisions.md section 24: 413 above 64 KB). */
export const DEVICE_BODY_LIMIT = 64 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    phone?: DeviceRow;
  }
}

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });
const AnyObject = Type.Object({}, { additionalProperties: true });
const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
const phoneOf = (request: FastifyRequest) => {
  if (!request.phone) throw new AppError('UNAUTHORIZED');
  return request.phone;
};
const ok = <T>(data: T) => ({ success: true as const, data });
/** A body that authenticated but is not the app's shape: 400, which the app shows in its log. */
const readOr400 = <T>(read: () => T): T => {
  try {
    return read();
  } catch (err) {
    if (err instanceof EnvelopeError)
      throw new AppError('VALIDATION_ERROR', [{ field: 'body', problem: err.message }]);
    throw err;
  }
};

/**
 * The `:id` of a phone's path, read in the hooks that authenticate before the schema validates (the
 * router always gives a string; an unknown id is refused by the authentication).
 */
function deviceId(request: FastifyRequest): string {
  const params: unknown = request.params;
  return typeof params === 'object' && params !== null && 'id' in params ? String(params.id) : '';
}

/**
 * What phones post (docs/decisions.md section 24): SMS Gateway for Android's webhooks (signed), SmsForwarder's
 * template (bearer token) and the native batch (signed); the pairing link's page is the pairing
 * surface's (src/surfaces/pairing). The signature
 * or token is checked before anything else, so a refused request stores nothing; every authentic
 * event is answered 2xx (including `ignored` and `duplicate`) so that apps stop retrying.
 */
export function deviceEndpoints(app: App, deps: { ingest: DeviceIngest }) {
  const signed = (which: 'sms_gateway' | 'native') => async (request: FastifyRequest) => {
    request.phone = await deps.ingest.authenticateSigned(deviceId(request), which, {
      body: request.rawBody ?? Buffer.alloc(0),
      timestamp: header(request, 'x-timestamp'),
      signature: header(request, 'x-signature'),
    });
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
  };

  app.post(
    '/devices/:id/sms-gateway',
    {
      bodyLimit: DEVICE_BODY_LIMIT,
      preValidation: signed('sms_gateway'),
      schema: {
        tags: ['devices'],
        summary: 'SMS Gateway for Android webhooks (sms:received, system:ping, app:started), signed',
        params: Params,
        body: AnyObject,
        response: { 200: Envelope(IngestAnswerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const device = phoneOf(request);
      const event = readOr400(() => readSmsGatewayEnvelope(request.body));
      let answer: IngestAnswer;
      if (event.kind === 'sms')
        answer = await deps.ingest.message(device, 'sms_gateway', { ...event, channel: 'sms' });
      else if (event.kind === 'heartbeat') answer = await deps.ingest.heartbeat(device, event.health);
      else answer = await deps.ingest.ignored(device);
      return ok(answer);
    },
  );

  app.post(
    '/devices/:id/sms-forwarder',
    {
      bodyLimit: DEVICE_BODY_LIMIT,
      preValidation: async (request) => {
        request.phone = await deps.ingest.authenticateBearer(deviceId(request), bearerToken(request));
        if (request.bodyParseError) throw new AppError('INVALID_JSON');
      },
      schema: {
        tags: ['devices'],
        summary: "SmsForwarder's webhook with our template (Authorization: Bearer <device token>)",
        params: Params,
        body: AnyObject,
        response: { 200: Envelope(IngestAnswerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const message = readOr400(() => readSmsForwarderBody(request.body));
      return ok(await deps.ingest.message(phoneOf(request), 'sms_forwarder', message));
    },
  );

  app.post(
    '/devices/:id/events',
    {
      bodyLimit: DEVICE_BODY_LIMIT,
      preValidation: signed('native'),
      schema: {
        tags: ['devices'],
        summary: 'The native batch: raw SMS and push texts and heartbeats, signed',
        params: Params,
        body: NativeBatch,
        response: { 200: Envelope(NativeAnswerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const device = phoneOf(request);
      const results = [];
      for (const e of request.body.events) {
        const receivedAt = new Date(e.occurred_at);
        let answer: IngestAnswer;
        if (e.kind === 'heartbeat') answer = await deps.ingest.heartbeat(device);
        else if (!e.source || e.text === undefined)
          answer = { status: 'ignored', reason: 'an sms or push needs source and text' };
        else
          answer = await deps.ingest.message(device, 'native', {
            channel: e.kind,
            source: e.source,
            text: e.text,
            receivedAt,
            ...(e.title ? { title: e.title } : {}),
          });
        results.push({ client_event_id: e.event_id, ...answer });
      }
      return ok({ results });
    },
  );
}

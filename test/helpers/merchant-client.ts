import { createHash, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/schemas.js';
import { ADMIN_TOKEN } from './app.js';

/** hex SHA-256 of "<API_KEY>|<body>" (docs/api.md Authentication). */
export function sign(apiKey: string, body: string | Buffer = ''): string {
  return createHash('sha256').update(`${apiKey}|`).update(body).digest('hex');
}

/** A merchant created through the admin API, with its API key. */
export interface TestMerchant {
  id: string;
  apiKey: string;
}

/** Calls the admin API and fails the test on a non-200 answer. */
export async function admin<T = Record<string, unknown>>(
  app: App,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
  url: string,
  body?: unknown,
): Promise<T> {
  const res = await adminRaw(app, method, url, body);
  if (res.statusCode !== 200) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
  return (res.json() as { data: T }).data;
}

export function adminRaw(app: App, method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, body?: unknown) {
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Creates a merchant with a unique id (tests never share merchants) and returns its key. */
export async function createMerchant(
  app: App,
  settings: Record<string, unknown> = {},
): Promise<TestMerchant> {
  const id = `m_${randomUUID().slice(0, 12)}`;
  const data = await admin<{ api_key: string }>(app, 'POST', '/admin/merchants', {
    merchant_id: id,
    ...settings,
  });
  return { id, apiKey: data.api_key };
}

/** Adds a requisite to the pool. Defaults: an RUB phone at Sberbank. */
export async function addRequisite(
  app: App,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; address: string }> {
  const digits = String(Math.floor(Math.random() * 1e10)).padStart(10, '0');
  const kind = (fields.kind as string | undefined) ?? 'phone';
  const address =
    kind === 'card' ? `2200${digits}00` : kind === 'qr' ? `https://qr.nspk.ru/${digits}` : `7${digits}`;
  return admin(app, 'POST', '/admin/requisites', {
    kind,
    bank: 'Sberbank',
    address,
    holder_name: 'Ivan Petrov',
    currency: 'RUB',
    ...fields,
  });
}

/** A random RUB amount far from every other test's, so that global disambiguation never meets them. */
export function uniqueAmount(): number {
  return 100_000 + Math.floor(Math.random() * 800_000) * 10;
}

export interface SignedOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Exact body text to send (else compact JSON of `body`). */
  raw?: string;
  /** Text to sign (else the body sent, or '' for GET). */
  signed?: string;
  headers?: Record<string, string>;
}

/** Sends a correctly signed merchant request (unless the options say otherwise). */
export function merchantRequest(
  app: App,
  merchant: TestMerchant,
  url: string,
  options: SignedOptions = {},
): Promise<LightMyRequestResponse> {
  const method = options.method ?? (options.body === undefined && options.raw === undefined ? 'GET' : 'POST');
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const signedText = options.signed ?? (method === 'GET' ? '' : (payload ?? ''));
  return app.inject({
    method,
    url,
    headers: {
      'client-api-key': merchant.apiKey,
      'x-api-key': sign(merchant.apiKey, signedText),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(payload === undefined ? {} : { payload }),
  });
}

/** createOrder with sensible defaults for a fiat PAYIN. */
export function createOrder(app: App, merchant: TestMerchant, fields: Record<string, unknown> = {}) {
  return merchantRequest(app, merchant, '/merchant/createOrder', {
    body: { merchant_id: merchant.id, amount: uniqueAmount(), type: 'sim', ...fields },
  });
}

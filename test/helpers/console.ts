import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/schemas.js';

/** The cookies a response sets, as one `Cookie` header value (name=value; ...). */
export function cookiesOf(res: LightMyRequestResponse): string {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return list.map((c) => String(c).split(';')[0]).join('; ');
}

/** Posts the console login form (with its double-submit CSRF token) from `ip`; returns the answer. */
export async function postLogin(
  app: App,
  username: string,
  password: string,
  ip = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  const form = await app.inject({ method: 'GET', url: '/backoffice/login', remoteAddress: ip });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  return app.inject({
    method: 'POST',
    url: '/backoffice/login',
    remoteAddress: ip,
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, username, password }).toString(),
  });
}

/** A signed-in console session: its cookie and the CSRF token its forms carry. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

/** Logs in through the console form and reads the session's CSRF token from a page. */
export async function consoleLogin(app: App, username: string, password: string): Promise<ConsoleSession> {
  const res = await postLogin(app, username, password);
  assert.equal(res.statusCode, 303, res.body);
  assert.match(String(res.headers.location), /^\/backoffice$/, 'logged in');
  const cookie = cookiesOf(res);
  const page = await app.inject({ method: 'GET', url: '/backoffice/orders', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf, 'a page carries the CSRF token');
  return { cookie, csrf };
}

/** Posts a console form as the session (CSRF token added). */
export function consolePost(
  app: App,
  session: ConsoleSession,
  url: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
  });
}

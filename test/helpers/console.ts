import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import * as OTPAuth from 'otpauth';
import type { App } from '../../src/http/schemas.js';
import { sleep } from './wait.js';

/** TOTP secrets of the operators this process enrolled, by username (codes for the next sign-ins). */
export const operatorSecrets = new Map<string, string>();
const lastStep = new Map<string, number>();

/**
 * A code of `secret` that the service has not accepted yet: each code is good once (RFC 6238 5.2), so
 * a second sign-in in the same 30 s step takes the next step's code (accepted one step ahead), and a
 * third waits for the clock. With the test app's manual clock (`manualClock`, passed as `clock`),
 * that wait is the clock moved on to the next step's start, the time the service reads the code at.
 */
export async function nextCode(
  secret: string,
  clock: { now(): number; advance?(ms: number): void } = { now: Date.now },
): Promise<string> {
  for (;;) {
    const now = Math.floor(clock.now() / 30_000);
    const step = Math.max(now, (lastStep.get(secret) ?? -1) + 1);
    if (step <= now + 1) {
      lastStep.set(secret, step);
      return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
        timestamp: step * 30_000,
      });
    }
    if (clock.advance) clock.advance((now + 1) * 30_000 - clock.now());
    else await sleep(1000);
  }
}

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
  code = '',
): Promise<LightMyRequestResponse> {
  const form = await app.inject({ method: 'GET', url: '/backoffice/login', remoteAddress: ip });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  return app.inject({
    method: 'POST',
    url: '/backoffice/login',
    remoteAddress: ip,
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, username, password, code }).toString(),
  });
}

/** A signed-in console session: its cookie and the CSRF token its forms carry. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

/**
 * Logs in through the console form (with the next TOTP code when this process enrolled the
 * operator) and reads the session's CSRF token from a page. An admin or payouts operator without
 * two-factor is enrolled on the way, as the console demands; the secret is kept in `operatorSecrets`.
 * `clock`: the test app's manual clock when it has one (codes are read at its time: nextCode).
 */
export async function consoleLogin(
  app: App,
  username: string,
  password: string,
  clock?: Parameters<typeof nextCode>[1],
): Promise<ConsoleSession> {
  const known = operatorSecrets.get(username);
  const res = await postLogin(
    app,
    username,
    password,
    '127.0.0.1',
    known ? await nextCode(known, clock) : '',
  );
  assert.equal(res.statusCode, 303, res.body);
  const cookie = cookiesOf(res);
  if (res.headers.location === '/backoffice/account/two-factor') {
    const enrol = await app.inject({
      method: 'GET',
      url: '/backoffice/account/two-factor',
      headers: { cookie },
    });
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(enrol.body)?.[1] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(enrol.body)?.[1] ?? '';
    assert.ok(secret && csrf, enrol.body);
    const done = await consolePost(app, { cookie, csrf }, '/backoffice/account/two-factor', {
      code: await nextCode(secret, clock),
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /data-testid="recovery-codes"/);
    operatorSecrets.set(username, secret);
  } else {
    assert.match(String(res.headers.location), /^\/backoffice$/, 'logged in');
  }
  const page = await app.inject({ method: 'GET', url: '/backoffice/orders', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf, 'a page carries the CSRF token');
  return { cookie, csrf };
}

/** Posts a console form as the session (CSRF token added); a list is a repeated field (checkboxes). */
export function consolePost(
  app: App,
  session: ConsoleSession,
  url: string,
  fields: Record<string, string | string[]>,
): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams({ _csrf: session.csrf });
  for (const [key, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(key, one);
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
}

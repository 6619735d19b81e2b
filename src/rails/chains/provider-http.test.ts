import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChainSourceError } from './chain-source.js';
import { createRequestBudget, providerRequest, providerTarget, UNLIMITED } from './provider-http.js';

/** A fetch that answers from a list and records what it was asked. */
function scripted(answers: Array<{ status: number; body?: string; headers?: Record<string, string> }>) {
  const asked: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    asked.push({ url: String(url), init });
    const a = answers.shift() ?? { status: 200, body: 'ok' };
    return new Response(a.body ?? '', { status: a.status, headers: a.headers ?? {} });
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

describe('provider HTTP: budget, backoff, redirects, credentials', () => {
  it('the budget spaces requests 1/rps apart and a pause holds every later slot', async () => {
    let now = 0;
    const slept: number[] = [];
    const budget = createRequestBudget(10, {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    await budget.take();
    await budget.take();
    await budget.take();
    assert.deepEqual(slept, [100, 100]);
    budget.pause(1000);
    await budget.take();
    assert.equal(slept.at(-1), 1000);
  });

  it('URL credentials become a Basic header (an explicit Authorization wins) and leave the URL', () => {
    const t = providerTarget('https://op:s%40cret@node.example/rpc', {});
    assert.equal(t.url, 'https://node.example/rpc');
    assert.equal(t.headers.authorization, `Basic ${Buffer.from('op:s@cret').toString('base64')}`);
    assert.equal(
      providerTarget('https://op:x@node.example/', { authorization: 'Bearer k' }).headers.authorization,
      'Bearer k',
    );
  });

  it('a redirect is never followed: an error naming the redacted target, the key sent nowhere else', async () => {
    const { fetch, asked } = scripted([
      { status: 302, headers: { location: 'https://evil.example/x/0123456789abcdef0123456789?key=k' } },
    ]);
    await assert.rejects(
      providerRequest(
        providerTarget('https://node.example/', { 'tron-pro-api-key': 'k' }),
        { method: 'GET', what: 'GET /' },
        { budget: UNLIMITED, fetch },
      ),
      (err: unknown) =>
        err instanceof ChainSourceError &&
        err.message.includes('redirected (HTTP 302) to https://evil.example/x/***?***: not followed') &&
        !err.message.includes('key=k'),
    );
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.init?.redirect, 'manual');
  });

  it("a 429 (or TronGrid's 403 'exceeds the frequency limit') is retried after Retry-After or a backoff; past the retries, an error", async () => {
    const paused: number[] = [];
    const budget = { rps: 1, take: async () => {}, pause: (ms: number) => paused.push(ms) };
    const { fetch } = scripted([
      { status: 429, headers: { 'retry-after': '2' } },
      {
        status: 403,
        body: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s',
      },
      { status: 200, body: 'fine' },
    ]);
    const ok = await providerRequest(
      providerTarget('https://p.example/', {}),
      { method: 'GET', what: 'GET /' },
      { budget, fetch, backoffMs: 10 },
    );
    assert.deepEqual([ok.status, ok.text, paused], [200, 'fine', [2000, 20]]);
    const always = scripted([{ status: 429 }, { status: 429 }, { status: 429 }, { status: 429 }]);
    await assert.rejects(
      providerRequest(
        providerTarget('https://p.example/', {}),
        { method: 'GET', what: 'GET /' },
        { budget: UNLIMITED, fetch: always.fetch, backoffMs: 1 },
      ),
      (err: unknown) =>
        err instanceof ChainSourceError && err.status === 429 && /after 3 retries/.test(err.message),
    );
  });
});

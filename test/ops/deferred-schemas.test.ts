import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { adminRaw } from '../helpers/merchant-client.js';

/** An answer without what differs between two requests (the request id). */
function answer(res: { statusCode: number; body: string }) {
  const body = JSON.parse(res.body) as Record<string, unknown>;
  delete body.request_id;
  return { status: res.statusCode, body };
}

// docs/decisions.md "A start that compiles nothing".
describe('route schemas compile at their first use, with the same answers as compiled at start', () => {
  let lazy: TestApp;
  let eager: TestApp;
  before(async () => {
    lazy = await startTestApp();
    eager = await startTestApp();
    eager.app.deferredSchemas.compileAll();
  });
  after(async () => {
    await lazy.close();
    await eager.close();
  });

  it('a started app has compiled none of its route schemas', () => {
    assert.ok(lazy.app.deferredSchemas.pending > 100, `pending ${lazy.app.deferredSchemas.pending}`);
    assert.equal(eager.app.deferredSchemas.pending, 0);
  });

  it('the first request of a route rejects a bad JSON body with the same answer', async () => {
    for (const body of [
      { code: 5, name: '' },
      { name: 'Bank' },
      // JSON bodies are not coerced: "true" is not a boolean.
      { code: 'lazybank', name: 'Lazy bank', sbp: 'true' },
    ]) {
      const first = await adminRaw(lazy.app, 'POST', '/admin/banks', body);
      const compiled = await adminRaw(eager.app, 'POST', '/admin/banks', body);
      assert.equal(first.statusCode, 400, first.body);
      assert.deepEqual(answer(first), answer(compiled));
    }
  });

  it('query parameters are coerced on the first request as before; a bad one is refused alike', async () => {
    const bad = '/admin/audit?limit=abc';
    const first = await adminRaw(lazy.app, 'GET', bad);
    assert.equal(first.statusCode, 400, first.body);
    assert.deepEqual(answer(first), answer(await adminRaw(eager.app, 'GET', bad)));
    const good = await adminRaw(lazy.app, 'GET', '/admin/audit?limit=1');
    assert.equal(good.statusCode, 200, good.body);
    assert.ok((good.json() as { data: unknown[] }).data.length <= 1);
  });

  it('a response is serialized by its schema on first use, as when compiled at start', async () => {
    const res = await adminRaw(lazy.app, 'GET', '/admin/banks');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(answer(res), answer(await adminRaw(eager.app, 'GET', '/admin/banks')));
  });

  it('every route schema compiles (what a start no longer proves)', () => {
    lazy.app.deferredSchemas.compileAll();
    assert.equal(lazy.app.deferredSchemas.pending, 0);
  });
});

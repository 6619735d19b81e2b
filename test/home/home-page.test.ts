import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('GET /: where the portal, the console and the API docs are', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("Accept: application/json answers the name and version (curl's */* too)", async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept } });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /application\/json/);
      assert.deepEqual(res.json(), {
        name: PACKAGE.name,
        version: PACKAGE.version,
        links: { portal: '/portal', console: '/backoffice', docs: '/docs' },
      });
    }
  });

  it('a browser gets a page linking the portal, console and docs, in Russian by default', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'ru-RU,ru;q=0.9' },
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /<html lang="ru">/);
    for (const href of ['/portal', '/backoffice', '/docs'])
      assert.match(res.body, new RegExp(`href="${href}"`));
    assert.match(res.body, /Кабинет мерчанта/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
  });

  it('English by Accept-Language, and the switch link in both directions', async () => {
    const en = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { accept: 'text/html', 'accept-language': 'en-US,en;q=0.9' },
    });
    assert.match(en.body, /<html lang="en">/);
    assert.match(en.body, /Merchant portal/);
    assert.match(en.body, /href="\/\?lang=ru"/);
    const ru = await t.app.inject({
      method: 'GET',
      url: '/?lang=ru',
      headers: { accept: 'text/html', 'accept-language': 'en-US' },
    });
    assert.match(ru.body, /<html lang="ru">/);
    assert.match(ru.body, /href="\/\?lang=en"/);
  });
});

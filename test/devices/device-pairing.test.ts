import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin } from '../helpers/merchant-client.js';
import { type PairedDevice, pairDevice } from '../helpers/phones.js';

// docs/decisions.md "The pairing page": opening the link spends nothing and shows no secret; the
// claim (a form post carrying the code, or JSON) spends it once and records the endings asked for.
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const secretsOf = (d: PairedDevice) => [d.token, d.sms_gateway.signing_key, d.native.secret];

describe('the pairing link: a page that spends nothing, a claim that spends it once', () => {
  const clock = manualClock();
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  // A requisite binds to one device: every test takes fresh ones.
  // Pairing needs requisites, not orders: at most 1 ₽, so no other file's order lands on them.
  const requisite = (kind: 'phone' | 'card', bank: string) =>
    addRequisite(t.app, { kind, bank, max_amount: '1' });

  const pathOf = (d: PairedDevice) => new URL(d.pairing.url).pathname;
  const codeOf = (d: PairedDevice) => pathOf(d).split('/').at(-1) ?? '';
  const get = (url: string, headers: Record<string, string> = { accept: BROWSER }) =>
    t.app.inject({ method: 'GET', url, headers });
  const claimForm = (d: PairedDevice, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: pathOf(d),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER, ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  const claimJson = (d: PairedDevice, body: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: pathOf(d),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: JSON.stringify(body),
    });

  it('GET, HEAD and a link preview show the page without a secret and leave the link claimable', async () => {
    const device = await pairDevice(t.app, [(await requisite('phone', 'sber')).id]);
    const page = await get(pathOf(device));
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*form-action 'self'/);
    assert.doesNotMatch(String(page.headers['content-security-policy']), /script-src/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /<form[^>]+method="post"/);
    assert.match(page.body, /data-testid="qr"/);
    assert.ok(page.body.includes(device.sms_gateway.url), 'the addresses are shown');
    const head = await t.app.inject({ method: 'HEAD', url: pathOf(device) });
    assert.equal(head.statusCode, 200);
    const preview = await get(pathOf(device), {
      accept: '*/*',
      'user-agent': 'TelegramBot (like TwitterBot)',
    });
    assert.equal(preview.statusCode, 200);
    for (const body of [page.body, preview.body])
      for (const secret of secretsOf(device)) assert.ok(!body.includes(secret), 'no secret before the claim');
    const claimed = await claimForm(device, { code: codeOf(device) });
    assert.equal(claimed.statusCode, 200, claimed.body);
    assert.ok(claimed.body.includes(device.sms_gateway.signing_key), 'the claim shows the signing key');
    assert.ok(claimed.body.includes(`Bearer ${device.token}`), "SmsForwarder's header");
    assert.ok(claimed.body.includes(device.native.secret));
  });

  it('a JSON client gets the preview (no secrets) and claims with a JSON post', async () => {
    const device = await pairDevice(t.app, [(await requisite('phone', 'yandex')).id]);
    const res = await get(pathOf(device), { accept: 'application/json' });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.equal(data.device_id, device.id);
    assert.equal(data.apps.sms_gateway.url, device.sms_gateway.url);
    for (const secret of secretsOf(device)) assert.ok(!res.body.includes(secret));
    const claim = await claimJson(device);
    assert.equal(claim.statusCode, 200, claim.body);
    assert.equal(claim.json().data.sms_gateway.signing_key, device.sms_gateway.signing_key);
    assert.equal(claim.json().data.sms_forwarder.token, device.token);
    assert.deepEqual(claim.json().data.endings, []);
  });

  it('a second claim is refused with a readable page, and with PAIRING_LINK_USED for JSON', async () => {
    const device = await pairDevice(t.app, []);
    assert.equal((await claimJson(device)).statusCode, 200);
    const again = await claimForm(device, { code: codeOf(device) });
    assert.equal(again.statusCode, 409);
    assert.match(String(again.headers['content-type']), /text\/html/);
    assert.match(again.body, /data-testid="code">PAIRING_LINK_USED</);
    assert.match(again.body, /Ссылка уже использована/);
    for (const secret of secretsOf(device)) assert.ok(!again.body.includes(secret));
    const json = await claimJson(device);
    assert.equal(json.statusCode, 409);
    assert.equal(json.json().message, 'PAIRING_LINK_USED');
    assert.equal((await get(pathOf(device))).statusCode, 409, 'the page says it was used');
  });

  it('two claims at once: exactly one gets the settings', async () => {
    const device = await pairDevice(t.app, []);
    const answers = await Promise.all([
      claimJson(device),
      claimJson(device),
      claimForm(device, { code: codeOf(device) }),
    ]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409, 409]);
  });

  it('an expired, unknown or malformed link is refused as a page or JSON, never a 500', async () => {
    const device = await pairDevice(t.app, []);
    clock.advance(16 * 60_000);
    const page = await get(pathOf(device));
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /PAIRING_LINK_EXPIRED/);
    assert.equal((await claimJson(device)).json().message, 'PAIRING_LINK_EXPIRED');
    const unknown = await get('/devices/pair/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /Ссылка не найдена/);
    const json = await get('/devices/pair/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { accept: 'application/json' });
    assert.equal(json.json().message, 'NOT_FOUND');
    for (const bad of ['x', '%00%00', 'a'.repeat(150), 'a'.repeat(600), '..%2F..']) {
      const res = await get(`/devices/pair/${bad}`);
      assert.ok([400, 404].includes(res.statusCode), `${bad}: ${res.statusCode}`);
    }
  });

  it('the language: ?lang= (remembered), Accept-Language by weight, Russian for one it does not know', async () => {
    const device = await pairDevice(t.app, []);
    const lang = async (headers: Record<string, string>, query = '') =>
      /<html lang="(\w+)"/.exec(
        (await get(`${pathOf(device)}${query}`, { accept: BROWSER, ...headers })).body,
      )?.[1];
    assert.equal(await lang({ 'accept-language': 'de-DE,fr;q=0.9' }), 'ru');
    assert.equal(await lang({ 'accept-language': 'garbage;;q=x,,' }), 'ru');
    assert.equal(await lang({ 'accept-language': 'de,en-GB;q=0.8,ru;q=0.5' }), 'en');
    assert.equal(await lang({}, '?lang=zz'), 'ru');
    const chosen = await get(`${pathOf(device)}?lang=en`, { accept: BROWSER, 'accept-language': 'ru' });
    assert.match(chosen.body, /<html lang="en"/);
    const cookie = String(chosen.headers['set-cookie']).split(';')[0] ?? '';
    assert.equal(await lang({ cookie, 'accept-language': 'ru' }), 'en', 'remembered');
    const refused = await claimForm(device, { code: codeOf(device), lang: 'en', [`mask_${device.id}`]: '1' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /<html lang="en"[\s\S]*Check the ending/, 'a refusal in the form’s language');
    const claimed = await claimForm(device, { code: codeOf(device), lang: 'en' });
    assert.match(claimed.body, /<html lang="en"/);
  });

  it('asks an ending where the bank shows one and the requisite has none; records it once, audited', async () => {
    const [sberPhone, card] = [await requisite('phone', 'sber'), await requisite('card', 'sber')];
    const device = await pairDevice(t.app, [sberPhone.id, card.id]);
    const preview = (await get(pathOf(device), { accept: 'application/json' })).json().data;
    const asks = Object.fromEntries(
      preview.requisites.map((r: { id: string; asks_ending: boolean }) => [r.id, r.asks_ending]),
    );
    assert.deepEqual(asks, { [sberPhone.id]: true, [card.id]: false });
    const page = (await get(pathOf(device))).body;
    assert.ok(page.includes(`name="mask_${sberPhone.id}"`));
    assert.ok(!page.includes(`name="mask_${card.id}"`), "a card's own digits are its ending");
    const bad = await claimForm(device, { code: codeOf(device), [`mask_${sberPhone.id}`]: '12a4' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /data-testid="back"/);
    const notAsked = await claimForm(device, { code: codeOf(device), [`mask_${card.id}`]: '1234' });
    assert.equal(notAsked.statusCode, 400, 'an ending for a requisite the page did not ask about');
    const stray = await claimForm(device, { code: codeOf(device), other: 'x' });
    assert.equal(stray.statusCode, 400, 'unknown fields are refused');
    const ok = await claimForm(device, { code: codeOf(device), [`mask_${sberPhone.id}`]: ' 4417 ' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.match(ok.body, /data-testid="endings-saved">[^<]*4417/);
    const requisites = await admin<Array<{ id: string; masks: string[] }>>(t.app, 'GET', '/admin/requisites');
    assert.deepEqual(requisites.find((r) => r.id === sberPhone.id)?.masks, ['4417']);
    const audit = await admin<Array<{ action: string; target_id: string }>>(
      t.app,
      'GET',
      '/admin/audit?limit=50',
    );
    assert.ok(audit.some((a) => a.action === 'requisite.mask_learned' && a.target_id === sberPhone.id));
    assert.ok(audit.some((a) => a.action === 'device.paired' && a.target_id === device.id));
    const listed = await admin<Array<{ id: string; pairing_claimed_at: string | null }>>(
      t.app,
      'GET',
      '/admin/devices',
    );
    assert.ok(listed.find((d) => d.id === device.id)?.pairing_claimed_at, 'operators see the claim');
  });

  it('a bank whose credit texts show no ending (SBP at Yandex Bank) is not asked', async () => {
    const yandexPhone = await requisite('phone', 'yandex');
    const device = await pairDevice(t.app, [yandexPhone.id]);
    const page = (await get(pathOf(device))).body;
    assert.ok(!page.includes(`name="mask_${yandexPhone.id}"`));
  });

  it('a form post without the code, with another code or from another site is refused and spends nothing', async () => {
    const device = await pairDevice(t.app, []);
    const other = await pairDevice(t.app, []);
    assert.equal((await claimForm(device, {})).statusCode, 403);
    assert.equal((await claimForm(device, { code: codeOf(other) })).statusCode, 403);
    const cross = await claimForm(device, { code: codeOf(device) }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(cross.statusCode, 403);
    assert.equal((await claimForm(device, { code: codeOf(device) })).statusCode, 200, 'still claimable');
  });
});

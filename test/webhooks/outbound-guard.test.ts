import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/http/schemas.js';
import { parseAllowlist } from '../../src/platform/outbound/address-policy.js';
import {
  createOutboundGuard,
  ForbiddenAddressError,
  type Resolver,
} from '../../src/platform/outbound/outbound-guard.js';
import { manualClock, testConfig } from '../helpers/app.js';
import { closeTestDatabase, isolateDatabase, testDatabase } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

// NETWORK RULE: only loopback is ever contacted. Names go through fake resolvers (never real DNS);
// public addresses appear only in resolve() checks, which never connect.

/** A resolver over a fixed table; an unknown name fails instead of reaching real DNS. */
function fakeResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string) => {
    calls.push(host);
    const found = table[host];
    if (!found) throw new Error(`fake resolver: unknown name ${host}`);
    return found;
  };
  return Object.assign(resolver, { calls });
}

describe('guard.resolve (docs/decisions.md sections 9, 11)', () => {
  const table = {
    'evil.test': ['10.0.0.5'],
    'loop.test': ['127.0.0.2'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:7f00:1'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mixed-v6.test': ['2606:4700:4700::1111', 'fd12::1'],
    'empty.test': [],
    'public.test': ['93.184.216.34', '2606:4700:4700::1111'],
    'localhost.': ['127.0.0.1'],
    'hooks.internal': ['10.9.8.7', 'fd00::7'],
    'inrange.test': ['10.20.1.2'],
    'halfrange.test': ['10.20.1.2', '10.21.0.1'],
  };

  it('refuses hostile literals without asking the resolver', async () => {
    const resolver = fakeResolver(table);
    const guard = createOutboundGuard({ allowlist: parseAllowlist('127.0.0.1'), resolver });
    const literals = [
      '127.0.0.2',
      '10.0.0.5',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      '[::1]',
      '::',
      '[::ffff:7f00:2]',
      '::ffff:10.0.0.1',
      '[::7f00:1]',
      '64:ff9b::7f00:1',
      'fe80::1',
      'fd12::1',
    ];
    try {
      for (const host of literals) {
        await assert.rejects(guard.resolve(host), ForbiddenAddressError, host);
      }
      assert.deepEqual(resolver.calls, [], 'IP literals are never resolved');
    } finally {
      await guard.dispatcher.close();
    }
  });

  it('refuses names that resolve to any non-public address, or to none', async () => {
    const guard = createOutboundGuard({
      allowlist: parseAllowlist('127.0.0.1'),
      resolver: fakeResolver(table),
    });
    try {
      for (const host of [
        'evil.test',
        'loop.test',
        'metadata.test',
        'mixed.test',
        'mixed-v6.test',
        'empty.test',
      ]) {
        await assert.rejects(guard.resolve(host), (err: unknown) => {
          assert.ok(err instanceof ForbiddenAddressError, `${host}: ${String(err)}`);
          assert.equal(err.code, 'OUTBOUND_FORBIDDEN_ADDRESS');
          assert.ok(err.message.includes(host), err.message);
          return true;
        });
      }
    } finally {
      await guard.dispatcher.close();
    }
  });

  it('refuses "localhost." resolving to 127.0.0.1 when nothing is allowlisted', async () => {
    const guard = createOutboundGuard({ allowlist: parseAllowlist(''), resolver: fakeResolver(table) });
    try {
      await assert.rejects(guard.resolve('localhost.'), ForbiddenAddressError);
      await assert.rejects(guard.resolve('127.0.0.1'), ForbiddenAddressError);
    } finally {
      await guard.dispatcher.close();
    }
  });

  it('returns the first checked address of a public name (the one connected to)', async () => {
    const guard = createOutboundGuard({ allowlist: parseAllowlist(''), resolver: fakeResolver(table) });
    try {
      assert.equal(await guard.resolve('public.test'), '93.184.216.34');
      assert.equal(await guard.resolve('8.8.8.8'), '8.8.8.8');
      assert.equal(await guard.resolve('[2606:4700:4700::1111]'), '2606:4700:4700::1111');
    } finally {
      await guard.dispatcher.close();
    }
  });

  it('lets allowlisted host names, CIDRs and addresses through, and nothing beside them', async () => {
    const guard = createOutboundGuard({
      allowlist: parseAllowlist('hooks.internal,localhost,10.20.0.0/16,127.0.0.1'),
      resolver: fakeResolver(table),
    });
    try {
      assert.equal(await guard.resolve('hooks.internal'), '10.9.8.7');
      assert.equal(await guard.resolve('localhost.'), '127.0.0.1');
      assert.equal(await guard.resolve('inrange.test'), '10.20.1.2');
      assert.equal(await guard.resolve('10.20.255.254'), '10.20.255.254');
      assert.equal(await guard.resolve('127.0.0.1'), '127.0.0.1');
      assert.equal(await guard.resolve('[::ffff:7f00:1]'), '::ffff:7f00:1');
      assert.equal(await guard.resolve('mapped.test'), '::ffff:7f00:1');
      await assert.rejects(guard.resolve('halfrange.test'), ForbiddenAddressError, '10.21.0.1 is outside');
      await assert.rejects(guard.resolve('10.21.0.1'), ForbiddenAddressError);
      await assert.rejects(guard.resolve('127.0.0.2'), ForbiddenAddressError);
      await assert.rejects(guard.resolve('evil.test'), ForbiddenAddressError);
    } finally {
      await guard.dispatcher.close();
    }
  });
});

describe('guard.dispatcher connects only to the checked address', () => {
  let allowed: Awaited<ReturnType<typeof startReceiver>>;
  let trap: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    allowed = await startReceiver();
    trap = await startReceiver(() => ({ status: 200, body: 'leaked' }), '127.0.0.2');
  });
  after(async () => {
    await allowed.close();
    await trap.close();
  });

  it('the trap receiver on 127.0.0.2 is reachable without the guard (so silence means refusal)', async () => {
    const res = await request(`${trap.url}/control`);
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'leaked');
    assert.equal(trap.received.length, 1);
    trap.received.length = 0;
  });

  it('refuses fake-resolved names and literals of 127.0.0.2; reaches an allowlisted name', async () => {
    const resolver = fakeResolver({ 'evil.test': ['127.0.0.2'], 'split.test': ['127.0.0.1', '127.0.0.2'] });
    const guard = createOutboundGuard({ allowlist: parseAllowlist('127.0.0.1,good.test'), resolver });
    resolver.calls.length = 0;
    const table2 = fakeResolver({ 'good.test': ['127.0.0.1'] });
    const good = createOutboundGuard({ allowlist: parseAllowlist('good.test'), resolver: table2 });
    try {
      for (const url of [
        `http://evil.test:${trap.port}/`,
        `http://split.test:${trap.port}/`,
        `http://127.0.0.2:${trap.port}/`,
        `http://0x7f000002:${trap.port}/`,
        `http://[::ffff:127.0.0.2]:${trap.port}/`,
      ]) {
        await assert.rejects(
          request(url, { method: 'POST', body: '{}', dispatcher: guard.dispatcher }),
          ForbiddenAddressError,
          url,
        );
      }
      assert.equal(trap.received.length, 0, `leaked: ${trap.received.map((r) => r.url).join(', ')}`);
      const res = await request(`http://good.test:${allowed.port}/ok`, { dispatcher: good.dispatcher });
      assert.equal(res.statusCode, 200);
      await res.body.text();
      assert.equal(allowed.received.at(-1)?.url, '/ok');
      assert.equal(allowed.received.at(-1)?.headers.host, `good.test:${allowed.port}`);
    } finally {
      await guard.dispatcher.close();
      await good.dispatcher.close();
    }
  });
});

interface Delivery {
  id: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  attempt_log: Array<{
    attempt: number;
    started_at: string;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    response: string | null;
  }>;
}

describe('webhooks to forbidden addresses, end to end (fake DNS, loopback trap)', () => {
  const clock = manualClock();
  const resolver = fakeResolver({
    'evil.test': ['127.0.0.2'],
    'split.test': ['127.0.0.1', '127.0.0.2'],
    'hooks.test': ['127.0.0.1'],
  });
  let app: App;
  let runOnce: () => Promise<number>;
  let dropDatabase: () => Promise<void>;
  let merchant: TestMerchant;
  let allowed: Awaited<ReturnType<typeof startReceiver>>;
  let trap: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    dropDatabase = await isolateDatabase('wh_guard');
    trap = await startReceiver(() => ({ status: 200, body: 'leaked' }), '127.0.0.2');
    allowed = await startReceiver((req) =>
      req.url.startsWith('/redirect')
        ? { status: 302, body: 'moved', headers: { location: `${trap.url}/stolen` } }
        : { status: 200, body: 'ok' },
    );
    const built = await buildApp({
      config: testConfig(),
      database: await testDatabase(),
      clock,
      guard: createOutboundGuard({ allowlist: parseAllowlist('127.0.0.1'), resolver }),
    });
    app = built.app;
    runOnce = built.services.dispatcher.runOnce;
    await app.ready();
    merchant = await createMerchant(app);
    await addRequisite(app, { kind: 'phone' });
  });
  after(async () => {
    await app?.close();
    await closeTestDatabase();
    await dropDatabase?.();
    await allowed?.close();
    await trap?.close();
  });

  /** Creates and confirms an order calling back `url`, runs one dispatcher round, returns the delivery. */
  async function deliverOnce(url: string): Promise<Delivery> {
    const res = await createOrder(app, merchant, { amount: uniqueAmount(), success_callback_url: url });
    assert.equal(res.statusCode, 200, res.body);
    const order = res.json() as { id: string };
    await admin(app, 'POST', `/admin/orders/${order.id}/confirm`, {});
    await runOnce();
    const deliveries = await admin<Delivery[]>(app, 'GET', `/admin/webhooks?order_id=${order.id}`);
    assert.equal(deliveries.length, 1, JSON.stringify(deliveries));
    return deliveries[0] as Delivery;
  }

  function assertRefused(d: Delivery): void {
    const text = JSON.stringify(d);
    assert.equal(d.status, 'pending', text);
    assert.equal(d.attempts, 1, text);
    assert.equal(d.attempt_log.length, 1, text);
    const [a] = d.attempt_log;
    assert.equal(a?.status_code, null, text);
    assert.ok(a?.error?.startsWith('refused'), text);
    assert.ok((a?.latency_ms ?? -1) >= 0, text);
    assert.equal(a?.response, null, text);
    assert.equal(Date.parse(d.next_attempt_at ?? '') - Date.parse(a?.started_at ?? ''), 15_000, text);
    assert.equal(trap.received.length, 0, `trap got: ${trap.received.map((r) => r.body.toString()).join()}`);
  }

  it('positive control: a name resolving to the allowlisted 127.0.0.1 is delivered', async () => {
    const d = await deliverOnce(`http://hooks.test:${allowed.port}/named`);
    assert.equal(d.status, 'delivered', JSON.stringify(d));
    assert.ok(
      allowed.received.some((r) => r.url === '/named'),
      'the allowed receiver got it',
    );
  });

  for (const notation of [
    (port: number) => `http://127.0.0.2:${port}/`,
    (port: number) => `http://0x7f000002:${port}/`,
    (port: number) => `http://2130706434:${port}/`,
    (port: number) => `http://0177.0.0.2:${port}/`,
    (port: number) => `http://127.0.0.2.:${port}/`,
    (port: number) => `http://[::ffff:127.0.0.2]:${port}/`,
    (port: number) => `http://[::ffff:7f00:2]:${port}/`,
  ]) {
    // docs/decisions.md section 17: a literal the webhook can never reach is refused when the order is created
    // (the connect-time refusal of literals is the dispatcher test above; names are below).
    it(`refuses ${notation(0).replace(':0/', ':PORT/')} at creation: 400 naming the field, nothing sent`, async () => {
      const res = await createOrder(app, merchant, {
        amount: uniqueAmount(),
        success_callback_url: notation(trap.port),
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().message, 'VALIDATION_ERROR', res.body);
      assert.equal(res.json().details?.[0]?.field, 'success_callback_url', res.body);
      assert.equal(trap.received.length, 0);
    });
  }

  it('refuses a name resolving to 127.0.0.2 (fake DNS)', async () => {
    assertRefused(await deliverOnce(`http://evil.test:${trap.port}/`));
    assert.ok(resolver.calls.includes('evil.test'), 'the fake resolver was asked');
  });

  it('refuses a name resolving to the allowlisted 127.0.0.1 AND to 127.0.0.2', async () => {
    const before = allowed.received.length;
    assertRefused(await deliverOnce(`http://split.test:${allowed.port}/split`));
    assert.equal(allowed.received.length, before, 'nothing sent to the first address either');
  });

  it('does not follow a redirect from the allowed receiver to 127.0.0.2: a failed try with 302', async () => {
    const d = await deliverOnce(`${allowed.url}/redirect`);
    const text = JSON.stringify(d);
    assert.equal(d.status, 'pending', text);
    assert.equal(d.attempts, 1, text);
    assert.equal(d.attempt_log[0]?.status_code, 302, text);
    assert.equal(d.last_status_code, 302, text);
    assert.equal(d.attempt_log[0]?.error, 'HTTP 302', text);
    assert.equal(d.attempt_log[0]?.response, 'moved', text);
    assert.ok(
      allowed.received.some((r) => r.url === '/redirect'),
      'the allowed receiver was asked',
    );
    assert.equal(trap.received.length, 0, 'the redirect target got nothing');
  });
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { isolateDatabase, needsPostgres } from '../helpers/database.js';
import { startReceiver } from '../helpers/receiver.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = `cluster-admin-${randomUUID()}`;
const ROOT = new URL('../..', import.meta.url).pathname;

async function redisReachable(): Promise<boolean> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const sign = (key: string, body = '') => createHash('sha256').update(`${key}|${body}`).digest('hex');

describe('two API processes and two workers on one PostgreSQL and Redis (README "Deployment")', {
  skip: needsPostgres('the processes share one database server'),
  timeout: 120_000,
}, () => {
  const children: ChildProcess[] = [];
  let apis: string[] = [];
  let dropDatabase: () => Promise<void> = async () => undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let skipAll = false;

  function start(script: 'src/main.ts' | 'src/worker.ts', env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: String(process.env.TEST_DATABASE_URL),
        ADMIN_TOKEN,
        SECRET_KEY: 'cluster-secret-key-0123456789abcdef012345',
        REDIS_URL,
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  }

  const call = (base: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body,
    });
  const adminCall = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await call(
      base,
      method,
      path,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      body === undefined ? undefined : JSON.stringify(body),
    );
    const json = (await res.json()) as { data: Record<string, unknown>; message?: string };
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.data;
  };
  const merchantCall = (base: string, key: string, path: string, body?: unknown) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return call(
      base,
      text ? 'POST' : 'GET',
      path,
      { 'client-api-key': key, 'x-api-key': sign(key, text ?? '') },
      text,
    );
  };

  before(async () => {
    if (!(await redisReachable())) {
      skipAll = true;
      return;
    }
    dropDatabase = await isolateDatabase('cluster');
    receiver = await startReceiver();
    const ports = [await freePort(), await freePort()];
    apis = ports.map((p) => `http://127.0.0.1:${p}`);
    // The first API migrates alone; then the others start.
    start('src/main.ts', { PORT: String(ports[0]), RUN_JOBS: 'false' });
    await waitReady(apis[0] as string);
    start('src/main.ts', { PORT: String(ports[1]), RUN_JOBS: 'false' });
    start('src/worker.ts', {});
    start('src/worker.ts', {});
    await waitReady(apis[1] as string);
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await receiver?.close();
    await dropDatabase();
  });

  async function waitReady(base: string) {
    for (let i = 0; i < 120; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${base} did not become ready`);
  }

  it('disambiguation, balances, webhook claiming, rate limits and key rotation hold across processes', async (t) => {
    if (skipAll) return t.skip('Redis is not reachable');
    const [a, b] = apis as [string, string];
    const id = `cl_${randomUUID().slice(0, 8)}`;
    const { api_key: key } = (await adminCall(a, 'POST', '/admin/merchants', {
      merchant_id: id,
      payin_rate_limit: 1000,
    })) as { api_key: string };
    for (let i = 0; i < 4; i++) {
      await adminCall(a, 'POST', '/admin/requisites', {
        kind: 'phone',
        bank: 'Sberbank',
        address: `7900${String(1000000 + i)}`,
        holder_name: 'Ivan',
        currency: 'RUB',
      });
    }

    // 40 orders for one amount, alternating processes: 40 distinct payable amounts.
    const amount = 7_000_000;
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        merchantCall(i % 2 ? b : a, key, '/merchant/createOrder', {
          merchant_id: id,
          amount,
          type: 'sim',
          amountUp: 30,
          amountDown: 30,
          success_callback_url: `${receiver.url}/hook`,
        }).then((r) => r.json() as Promise<{ id: string; payment_details: { amount: string } }>),
      ),
    );
    assert.equal(new Set(created.map((o) => o.payment_details.amount)).size, 40, JSON.stringify(created[0]));

    // Webhooks: confirm 20 through both APIs; two workers deliver each exactly once.
    await Promise.all(
      created
        .slice(0, 20)
        .map((o, i) => adminCall(i % 2 ? b : a, 'POST', `/admin/orders/${o.id}/confirm`, {})),
    );
    const want = new Set(created.slice(0, 20).map((o) => o.id));
    for (let i = 0; i < 100 && receiver.received.length < 20; i++)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    const got = receiver.received.map((r) => (JSON.parse(r.body.toString()) as { id: string }).id);
    assert.equal(got.length, 20, `each webhook once (got ${got.length})`);
    assert.deepEqual(new Set(got), want);

    // Balances: 30 parallel debits of 100 against 2,000 through both processes: exactly 20 succeed.
    const balance = (await (await merchantCall(a, key, `/merchant/balance/${id}`)).json()) as {
      balance: number;
    };
    await adminCall(a, 'POST', `/admin/merchants/${id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 2000 - balance.balance,
      reason: 'set to 2000',
    });
    const debits = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(
          i % 2 ? b : a,
          'POST',
          `/admin/merchants/${id}/ledger-adjustments`,
          { authorization: `Bearer ${ADMIN_TOKEN}` },
          JSON.stringify({ currency: 'RUB', amount: -100, reason: 'x' }),
        ),
      ),
    );
    assert.equal(debits.filter((r) => r.status === 200).length, 20);
    const after = (await (await merchantCall(b, key, `/merchant/balance/${id}`)).json()) as {
      available: number;
    };
    assert.equal(after.available, 0);

    // Rate limits are shared: the 7th /merchant/banks within a second, alternating processes, is 429.
    const banks = [];
    for (let i = 0; i < 7; i++)
      banks.push((await merchantCall(i % 2 ? b : a, key, '/merchant/banks')).status);
    assert.deepEqual(banks.slice(0, 6), [200, 200, 200, 200, 200, 200]);
    assert.equal(banks[6], 429);

    // PAYOUT: one request per 5 s per key and IP, whichever process answers.
    const payout = {
      merchant_id: id,
      direction: 'PAYOUT',
      type: 'sim',
      amount: 10,
      payout_details: { holderAccount: '79001234567', holderName: 'I', methodName: 'Sberbank' },
    };
    const first = await merchantCall(a, key, '/merchant/createOrder', payout);
    assert.notEqual(first.status, 429);
    const second = await merchantCall(b, key, '/merchant/createOrder', payout);
    assert.equal(second.status, 429);
    assert.ok(Number(second.headers.get('retry-after')) >= 1);

    // Key rotation through A stops the old key on B within 1 s.
    const { api_key: newKey } = (await adminCall(a, 'POST', `/admin/merchants/${id}/api-keys`)) as {
      api_key: string;
    };
    const t0 = Date.now();
    let status = 200;
    while (Date.now() - t0 < 1000 && status !== 401) {
      status = (await merchantCall(b, key, `/merchant/order/${created[0]?.id}`)).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401, 'old key refused by the other process within 1 s');
    assert.equal((await merchantCall(b, newKey, `/merchant/order/${created[0]?.id}`)).status, 200);
  });
});

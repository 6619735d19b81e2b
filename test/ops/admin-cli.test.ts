import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, createMerchant, createOrder } from '../helpers/merchant-client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const execFileAsync = promisify(execFile);

/** Runs `npm run admin -- <args>` (the same entry, without npm) with `env`; never throws. */
async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/admin.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

// README "The admin API and CLI".
describe('npm run admin says what is wrong and finds orders by order_id (README "The admin API and CLI")', () => {
  let t: TestApp;
  let url: string;
  let empty: string;
  before(async () => {
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    empty = await mkdtemp(join(tmpdir(), 'cli-nodata-'));
  });
  after(async () => {
    await rm(empty, { recursive: true, force: true });
    await t.close();
  });

  it('no ADMIN_TOKEN and no secrets.json: says the token is missing and how to fix it', async () => {
    // The service is running at ADMIN_URL: the problem is the token, not the connection.
    const res = await cli(['merchant', 'list'], { ADMIN_URL: url, DATA_DIR: empty });
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /No admin token: ADMIN_TOKEN is not set and .*secrets\.json does not exist/);
    assert.match(res.stderr, /npm start/);
    assert.doesNotMatch(res.stderr, /Cannot reach/);
  });

  it("order show/confirm take the merchant's order_id, with --merchant when two merchants use it", async () => {
    await addRequisite(t.app, { kind: 'phone' });
    const [a, b] = [await createMerchant(t.app), await createMerchant(t.app)];
    const orderId = `shared-${randomUUID().slice(0, 8)}`;
    const ofA = (await createOrder(t.app, a, { order_id: orderId })).json();
    const ofB = (await createOrder(t.app, b, { order_id: orderId })).json();
    const env = { ADMIN_URL: url, ADMIN_TOKEN, DATA_DIR: empty };
    const ambiguous = await cli(['order', 'show', orderId], env);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /2 orders have order_id .*--merchant/);
    const shown = await cli(['order', 'show', orderId, '--merchant', b.id], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).id, ofB.id);
    const confirmed = await cli(['order', 'confirm', orderId, '--merchant', a.id], env);
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.deepEqual(
      [JSON.parse(confirmed.stdout).id, JSON.parse(confirmed.stdout).status],
      [ofA.id, 'success'],
    );
    const byInternal = await cli(['order', 'show', ofA.id], env);
    assert.equal(JSON.parse(byInternal.stdout).status, 'success');
    const unknown = await cli(['order', 'show', 'no-such-order', '--merchant', a.id], env);
    assert.match(unknown.stderr, /No order with order_id "no-such-order"/);
  });
});

describe('npm run admin prints the answer alone on stdout, the secret first', () => {
  let t: TestApp;
  let url: string;
  let dataDir: string;
  before(async () => {
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'cli-data-'));
    await writeFile(
      join(dataDir, 'secrets.json'),
      JSON.stringify({ adminToken: ADMIN_TOKEN, secretKey: 'x' }),
    );
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await t.close();
  });

  it('token prints the admin token kept in DATA_DIR/secrets.json, alone', async () => {
    const res = await cli(['token'], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `${ADMIN_TOKEN}\n`);
  });

  it('merchant create: the API key is the first field of the JSON', async () => {
    const id = `cli-${randomUUID().slice(0, 8)}`;
    const res = await cli(['merchant', 'create', id, '--fee', '2.5'], { ADMIN_URL: url, DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    const lines = res.stdout.split('\n');
    assert.match(lines[1] ?? '', /^ {2}"api_key": "[^"]+",$/);
    assert.equal(JSON.parse(res.stdout).merchant_id, id);
  });

  it('npm run -s admin -- ... | jq -r .api_key gives the key alone (no npm banner on stdout)', async () => {
    const id = `jq-${randomUUID().slice(0, 8)}`;
    const { stdout } = await execFileAsync(
      'bash',
      ['-c', `set -o pipefail; npm run -s admin -- merchant create ${id} | jq -r .api_key`],
      { cwd: ROOT, env: { ...process.env, ADMIN_URL: url, DATA_DIR: dataDir }, timeout: 60_000 },
    );
    assert.match(stdout, /^\S{20,}\n$/);
  });
});

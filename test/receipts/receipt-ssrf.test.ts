import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { buildApp } from '../../src/app.js';
import { receipts } from '../../src/db/tables/receipts.js';
import type { App } from '../../src/http/schemas.js';
import { parseAllowlist } from '../../src/platform/outbound/address-policy.js';
import {
  createOutboundGuard,
  ForbiddenAddressError,
  type OutboundGuard,
} from '../../src/platform/outbound/outbound-guard.js';
import { testConfig } from '../helpers/app.js';
import { closeTestDatabase, testDatabase } from '../helpers/database.js';
import { pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

// Hostile receipt URLs (docs/decisions.md section 9): every one is 400 RECEIPT_URL_FORBIDDEN_HOST and
// nothing reaches the traps. NETWORK RULE: the traps listen on 127.0.0.2 (loopback, not on the
// allowlist 127.0.0.1); names go to a fake resolver, never real DNS; before a request is sent, the
// guard is asked (no connection) and must refuse the host, so no private address is ever dialled.

/** Fake DNS. Unknown names throw (that would surface as RECEIPT_URL_HTTP_ERROR, failing the test). */
const TABLE: Record<string, string[]> = {
  localhost: ['127.0.0.2'],
  'localhost.': ['127.0.0.2'],
  'evil.test': ['127.0.0.2'],
  'ten.test': ['10.0.0.1'],
  'ten.test.': ['10.0.0.1'],
  'seventeen.test': ['172.16.0.1'],
  'lan.test': ['192.168.1.1'],
  'metadata.test': ['169.254.169.254'],
  'cgnat.test': ['100.64.0.1'],
  'ula.test': ['fc00::1'],
  'linklocal6.test': ['fe80::1'],
  'loop6.test': ['::1'],
  'mapped.test': ['::ffff:10.0.0.1'],
  'nat64.test': ['64:ff9b::a00:1'],
  'zero.test': ['0.0.0.0'],
  'multicast.test': ['224.0.0.1'],
  'broadcast.test': ['255.255.255.255'],
  'mixed.test': ['127.0.0.1', '10.0.0.1'],
  'mixed-rev.test': ['10.0.0.1', '127.0.0.1'],
  'mixed-loop.test': ['127.0.0.1', '127.0.0.2'],
  'empty.test': [],
};

// {TRAP} = the trap's port on 127.0.0.2; {OK} = the allowed 127.0.0.1 server's port.
const HOSTILE = [
  'http://127.0.0.2:{TRAP}/r.pdf',
  'http://0x7f000002:{TRAP}/r.pdf',
  'http://0X7F000002:{TRAP}/r.pdf',
  'http://0x7F.0x0.0x0.0x2:{TRAP}/r.pdf',
  'http://2130706434:{TRAP}/r.pdf',
  'http://017700000002:{TRAP}/r.pdf',
  'http://0177.0.0.2:{TRAP}/r.pdf',
  'http://127.2:{TRAP}/r.pdf',
  'http://127.0.2:{TRAP}/r.pdf',
  'http://127.000.000.002:{TRAP}/r.pdf',
  'http://127.0.0.2.:{TRAP}/r.pdf',
  'http://127%2E0.0.2:{TRAP}/r.pdf',
  'http://１２７．０．０．２:{TRAP}/r.pdf',
  'http://127。0。0。2:{TRAP}/r.pdf',
  'http://[::ffff:127.0.0.2]:{TRAP}/r.pdf',
  'http://[::ffff:7f00:2]:{TRAP}/r.pdf',
  'http://[0:0:0:0:0:FFFF:7F00:2]:{TRAP}/r.pdf',
  'http://[::127.0.0.2]:{TRAP}/r.pdf',
  'http://[::1]:{TRAP}/r.pdf',
  'http://0.0.0.0:{TRAP}/r.pdf',
  'http://0:{TRAP}/r.pdf',
  'http://127.0.0.2:{TRAP}\\@127.0.0.1:{OK}/r.pdf',
  'http://127.0.0.2:{TRAP}#@127.0.0.1:{OK}/r.pdf',
  'http://127.0.0.2:{TRAP}?@127.0.0.1:{OK}/r.pdf',
  'https://127.0.0.2:{TRAP}/r.pdf',
  'https://0x7f000002:{TRAP}/r.pdf',
  'https://[::ffff:127.0.0.2]:{TRAP}/r.pdf',
  'HTTPS://LOCALHOST:{TRAP}/r.pdf',
  'http://localhost:{TRAP}/r.pdf',
  'http://LocalHost:{TRAP}/r.pdf',
  'http://localhost.:{TRAP}/r.pdf',
  'http://evil.test:{TRAP}/r.pdf',
  'http://ten.test:{TRAP}/r.pdf',
  'http://ten.test.:{TRAP}/r.pdf',
  'http://TEN.Test:{TRAP}/r.pdf',
  'http://seventeen.test:{TRAP}/r.pdf',
  'http://lan.test:{TRAP}/r.pdf',
  'http://metadata.test/latest/meta-data/',
  'https://metadata.test/latest/meta-data/',
  'http://cgnat.test:{TRAP}/r.pdf',
  'http://ula.test:{TRAP}/r.pdf',
  'http://linklocal6.test:{TRAP}/r.pdf',
  'http://loop6.test:{TRAP}/r.pdf',
  'http://mapped.test:{TRAP}/r.pdf',
  'http://nat64.test:{TRAP}/r.pdf',
  'http://zero.test:{TRAP}/r.pdf',
  'http://multicast.test:{TRAP}/r.pdf',
  'http://broadcast.test:{TRAP}/r.pdf',
  'http://mixed.test:{OK}/r.pdf',
  'http://mixed-rev.test:{OK}/r.pdf',
  'http://mixed-loop.test:{OK}/r.pdf',
  'http://empty.test:{TRAP}/r.pdf',
];

/** Userinfo tricks: refused before any lookup as RECEIPT_URL_INVALID (docs/decisions.md section 16). */
const WITH_CREDENTIALS = [
  'http://127.0.0.1:{OK}@127.0.0.2:{TRAP}/r.pdf',
  'http://user:pass@127.0.0.2:{TRAP}/r.pdf',
];

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Child process: downloadReceipt over `urls` with the fake resolver (see receipt-url.test.ts, BUG). */
const HARNESS = `
const input = JSON.parse(process.env.HARNESS_INPUT);
const src = input.root + 'src/';
const { downloadReceipt } = await import(src + 'rails/receipts/receipt-fetch.ts');
const { createOutboundGuard } = await import(src + 'platform/outbound/outbound-guard.ts');
const { parseAllowlist } = await import(src + 'platform/outbound/address-policy.ts');
const { createDirectoryStorage } = await import(src + 'rails/receipts/receipt-storage.ts');
process.on('uncaughtException', () => {}); // the known destroy() bug; receipt-url.test.ts reports it
const resolver = async (host) => {
  const found = input.table[host];
  if (!found) throw new Error('fake resolver: unknown name ' + host);
  return found;
};
const guard = createOutboundGuard({ allowlist: parseAllowlist('127.0.0.1'), resolver });
const storage = createDirectoryStorage(input.dir);
const results = {};
for (const url of input.urls) {
  try {
    const spooled = await downloadReceipt(url, guard, storage, 5000);
    results[url] = 'ok:' + spooled.size;
    await storage.discard(spooled);
  } catch (e) {
    results[url] = e.code ?? String(e);
  }
}
await guard.dispatcher.close();
console.log(JSON.stringify(results));
`;

async function downloadInChild(urls: string[], dir: string): Promise<Record<string, string>> {
  const env = { ...process.env, HARNESS_INPUT: JSON.stringify({ root: ROOT, urls, table: TABLE, dir }) };
  const args = ['--import', 'tsx', '--input-type=module', '-e', HARNESS];
  const out = await execFileAsync(process.execPath, args, { cwd: ROOT, env, timeout: 60_000 });
  return JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}');
}

describe('receipt URL: hostile hosts are 400 RECEIPT_URL_FORBIDDEN_HOST, nothing is fetched', () => {
  let app: App;
  let guard: OutboundGuard;
  let dir: string;
  let merchant: TestMerchant;
  let orderId: string;
  let trap: Awaited<ReturnType<typeof startReceiver>>;
  let ok: Awaited<ReturnType<typeof startReceiver>>;
  const trapConnections = { count: 0 };
  const okConnections = { count: 0 };
  const resolved: string[] = [];
  let rebindCalls = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'receipt-ssrf-test-'));
    const pdf = () => ({ status: 200, body: pdfFile(), headers: { 'content-type': 'application/pdf' } });
    trap = await startReceiver(pdf, '127.0.0.2');
    trap.server.on('connection', () => trapConnections.count++);
    ok = await startReceiver((req) => {
      const to = new URL(req.url, 'http://x').searchParams.get('to');
      return to ? { status: 302, headers: { location: to } } : pdf();
    }, '127.0.0.1');
    ok.server.on('connection', () => okConnections.count++);
    guard = createOutboundGuard({
      allowlist: parseAllowlist('127.0.0.1'),
      resolver: async (host) => {
        resolved.push(host);
        // DNS rebinding: the first answer is allowed, every later one is not.
        if (host === 'rebind.test') return rebindCalls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2'];
        const found = TABLE[host];
        if (!found) throw new Error(`fake resolver: unknown name ${host}`);
        return found;
      },
    });
    const config = testConfig({ receiptsDir: dir });
    ({ app } = await buildApp({ config, database: await testDatabase(), guard }));
    await app.ready();
    merchant = await createMerchant(app);
    await addRequisite(app);
    const order = await createOrder(app, merchant);
    assert.equal(order.statusCode, 200, order.body);
    orderId = order.json().id;
  });
  after(async () => {
    await app.close();
    await closeTestDatabase();
    await trap.close();
    await ok.close();
    await rm(dir, { recursive: true, force: true });
  });

  const fill = (template: string) =>
    template.replaceAll('{TRAP}', String(trap.port)).replaceAll('{OK}', String(ok.port));
  const upload = (receiptUrl: string) =>
    merchantRequest(app, merchant, '/merchant/receipt/upload', { body: { orderId, receiptUrl } });
  const nothingFetched = (what: string) => {
    assert.equal(trapConnections.count, 0, `${what}: the trap on 127.0.0.2 was connected to`);
    assert.deepEqual(trap.received, [], `${what}: the trap received a request`);
  };

  it('the table is big enough and the traps are up', () => {
    assert.ok(HOSTILE.length >= 40, `${HOSTILE.length} entries`);
    assert.equal(new Set(HOSTILE).size, HOSTILE.length, 'duplicate entries');
    nothingFetched('before');
  });

  for (const template of HOSTILE) {
    it(template, async () => {
      const url = fill(template);
      // Safety first: the guard must refuse the host without connecting, else nothing is sent.
      const host = new URL(url).hostname;
      await assert.rejects(guard.resolve(host), ForbiddenAddressError, `the guard lets ${host} through`);
      const okBefore = { connections: okConnections.count, received: ok.received.length };
      const res = await upload(url);
      assert.equal(res.statusCode, 400, `${url} -> ${res.body}`);
      assert.equal(res.json().message, 'RECEIPT_URL_FORBIDDEN_HOST', `${url} -> ${res.body}`);
      nothingFetched(url);
      assert.equal(okConnections.count, okBefore.connections, `${url}: 127.0.0.1 was connected to`);
      assert.equal(ok.received.length, okBefore.received, `${url}: 127.0.0.1 received a request`);
    });
  }

  for (const template of WITH_CREDENTIALS) {
    it(`${template}: 400 RECEIPT_URL_INVALID (credentials), nothing fetched`, async () => {
      const url = fill(template);
      const okBefore = okConnections.count;
      const res = await upload(url);
      assert.equal(res.statusCode, 400, `${url} -> ${res.body}`);
      assert.equal(res.json().message, 'RECEIPT_URL_INVALID', `${url} -> ${res.body}`);
      nothingFetched(url);
      assert.equal(okConnections.count, okBefore, `${url}: 127.0.0.1 was connected to`);
    });
  }

  it('no receipt was stored and the order shows no receipt status', async () => {
    const rows = await (await testDatabase()).db.select().from(receipts).where(eq(receipts.orderId, orderId));
    assert.deepEqual(rows, []);
    const info = await merchantRequest(app, merchant, `/merchant/order/${orderId}`);
    assert.equal(info.json().receiptStatus, null, info.body);
    const unknown = resolved.filter((h) => !(h in TABLE));
    assert.deepEqual(unknown, [], 'a name outside the fake table was resolved');
  });

  it('a redirect from the allowed server to a hostile host is refused', async () => {
    const targets = [
      'http://127.0.0.2:{TRAP}/r.pdf',
      'http://0x7f000002:{TRAP}/r.pdf',
      'http://[::ffff:7f00:2]:{TRAP}/r.pdf',
      'https://127.0.0.2:{TRAP}/r.pdf',
      'http://localhost:{TRAP}/r.pdf',
      'http://evil.test:{TRAP}/r.pdf',
      'http://metadata.test/latest/meta-data/',
      'http://ten.test:{TRAP}/r.pdf',
      'http://mixed.test:{OK}/r.pdf',
    ].map(fill);
    const via = (to: string) => `${ok.url}/redirect?to=${encodeURIComponent(to)}`;
    // Two hops: allowed -> allowed -> hostile.
    const twoHops = via(via(targets[0] ?? ''));
    const urls = [...targets.map(via), twoHops];
    for (const to of targets) {
      const host = new URL(to).hostname;
      await assert.rejects(guard.resolve(host), ForbiddenAddressError, `the guard lets ${host} through`);
    }
    const mark = ok.received.length;
    // In a child process: a redirect makes downloadReceipt destroy an unread body, an uncaught error.
    const results = await downloadInChild(urls, dir);
    assert.deepEqual(results, Object.fromEntries(urls.map((u) => [u, 'RECEIPT_URL_FORBIDDEN_HOST'])));
    nothingFetched('redirects');
    const redirectRequests = ok.received.slice(mark).filter((r) => r.url.startsWith('/redirect'));
    assert.equal(redirectRequests.length, urls.length + 1, 'each redirect was asked once (twice for 2 hops)');
  });

  it('DNS rebinding: the connection goes to the address that was checked', async () => {
    const order = await createOrder(app, merchant);
    const res = await merchantRequest(app, merchant, '/merchant/receipt/upload', {
      body: { orderId: order.json().id, receiptUrl: `http://rebind.test:${ok.port}/r.pdf` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(ok.received.at(-1)?.headers.host, `rebind.test:${ok.port}`);
    nothingFetched('rebind');
  });
});

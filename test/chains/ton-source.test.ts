import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CHAINS } from '../../src/rails/chains/chain-catalog.js';
import {
  ChainMismatchError,
  ChainSourceError,
  type SeenTransfer,
} from '../../src/rails/chains/chain-source.js';
import { createTonSource, TON_MAX_PAGES, TON_PAGE } from '../../src/rails/chains/ton-source.js';
import { startTonFake, type TonFake, tonAddress } from '../helpers/fakes/toncenter.js';

// The TON source against a loopback toncenter API v3 (test/helpers/fakes/toncenter.ts names the
// ton-index-go commit and the TON docs it follows; docs/decisions.md sections 25 and 34).
const MASTER = tonAddress();
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

describe('TON source over toncenter API v3', () => {
  let fake: TonFake;
  let source: ReturnType<typeof createTonSource>;
  before(async () => {
    fake = await startTonFake({ blocks: 100 });
  });
  beforeEach(() => {
    source = createTonSource(
      { info: CHAINS.ton, url: `${fake.url}/`, apiKey: 'ton-key', tokenContract: MASTER, chainId: -239 },
      { backoffMs: 5 },
    );
  });
  after(() => fake.close());

  it('head is the last masterchain block (seqno, root hash as hex); blockHash is null above it', async () => {
    const head = await source.head();
    assert.equal(head.height, fake.head());
    assert.match(head.hash, /^[0-9a-f]{64}$/);
    assert.equal(await source.blockHash(head.height), head.hash);
    assert.equal(await source.blockHash(head.height + 5), null);
    const last = fake.requests.at(-1);
    assert.match(last?.url ?? '', /^\/api\/v3\/blocks\?workchain=-1&shard=8000000000000000&seqno=\d+/);
    assert.equal(last?.headers['x-api-key'], 'ton-key');
  });

  it('a plain TON transfer is a coin transfer of its credit in nanotons, at position 0, in its masterchain block', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    const tx = fake.payTon(to, 12_500_000_001n);
    const seen = await source.scan(from, fake.head(), { coin: [to], token: [] });
    assert.deepEqual(
      seen.map((s) => [s.asset, s.address, s.txHash, s.position, s.amount, s.block?.height]),
      [['coin', to, hex(tx.hash), 0, 12_500_000_001n, tx.mc_block_seqno]],
    );
    assert.equal(seen[0]?.block?.hash, await source.blockHash(tx.mc_block_seqno));
    assert.deepEqual(await source.locate(seen[0] as SeenTransfer), seen[0]?.block);
  });

  it('the amount is what the payer sent, also when a storage debt was collected from it', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    fake.payTon(to, 3_000_000_000n, { storageDue: 1_234n });
    const seen = await source.scan(from, fake.head(), { coin: [to], token: [] });
    assert.deepEqual(
      seen.map((s) => s.amount),
      [3_000_000_000n],
    );
  });

  it('not a payment: bounced back, an external message, a jetton notification or excesses', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    fake.payTon(to, 5n, { bounced: true });
    fake.payTon(to, 6n, { from: null });
    fake.payTon(to, 7n, { opcode: '0x7362d09c' });
    fake.payTon(to, 8n, { opcode: '0xd53276db' });
    const comment = fake.payTon(to, 9n, { opcode: '0x00000000' });
    const seen = await source.scan(from, fake.head(), { coin: [to], token: [] });
    assert.deepEqual(
      seen.map((s) => [s.txHash, s.amount]),
      [[hex(comment.hash), 9n]],
    );
  });

  it('USDT jetton transfers of the configured master, not aborted; another master is not ours', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    const paid = fake.payJetton(to, 25_500_000n, { master: MASTER });
    fake.payJetton(to, 1_000_000n, { master: MASTER, aborted: true });
    fake.payJetton(to, 2_000_000n, { master: tonAddress() });
    const seen = await source.scan(from, fake.head(), { coin: [], token: [to] });
    assert.deepEqual(
      seen.map((s) => [s.asset, s.txHash, s.position, s.amount, s.block?.height]),
      [['token', hex(paid.hash), 0, 25_500_000n, paid.mc_block_seqno]],
    );
    const request = fake.requests.find((r) => r.url.startsWith('/api/v3/jetton/transfers'));
    assert.match(
      request?.url ?? '',
      /owner_address=0%3A[0-9a-f]{64}&direction=in&jetton_master=0%3A[0-9a-f]{64}/,
    );
  });

  it('both assets are read for every address: a jetton to a TON order address is seen as a token', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    fake.payJetton(to, 3_000_000n, { master: MASTER });
    const seen = await source.scan(from, fake.head(), { coin: [to], token: [] });
    assert.deepEqual(
      seen.map((s) => [s.asset, s.amount]),
      [['token', 3_000_000n]],
    );
  });

  it(`pages newest first by ${TON_PAGE} and stops below \`from\`; more than ${TON_MAX_PAGES} pages fails`, async () => {
    const to = tonAddress();
    for (let i = 0; i < 3; i++) fake.payTon(to, 1n);
    const from = fake.head() + 1;
    for (let i = 0; i < TON_PAGE + 5; i++) fake.payTon(to, BigInt(100 + i));
    const before = fake.requests.length;
    const seen = await source.scan(from, fake.head(), { coin: [to], token: [] });
    assert.equal(seen.length, TON_PAGE + 5);
    assert.ok(seen.every((s) => s.amount >= 100n));
    const pages = fake.requests.slice(before).filter((r) => r.url.includes(`account=`));
    assert.deepEqual(
      pages.map((r) => new URL(r.url, 'http://x').searchParams.get('offset')),
      ['0', String(TON_PAGE)],
    );
    const busy = tonAddress();
    const start = fake.head() + 1;
    for (let i = 0; i < TON_PAGE * TON_MAX_PAGES; i++) fake.payTon(busy, 1n);
    await assert.rejects(
      source.scan(start, fake.head(), { coin: [busy], token: [] }),
      (err: Error) => err instanceof ChainSourceError && /more than 1000 transfers/.test(err.message),
    );
  });

  it('addresses that are not TON addresses are skipped, never sent', async () => {
    const before = fake.requests.length;
    assert.deepEqual(await source.scan(1, fake.head(), { coin: ['EQnot-a-real-address'], token: [] }), []);
    assert.equal(fake.requests.length, before);
  });

  it('an unknown transaction locates to null', async () => {
    const missing = {
      asset: 'coin' as const,
      address: tonAddress(),
      txHash: 'ab'.repeat(32),
      position: 0,
      amount: 0n,
      block: null,
    };
    assert.equal(await source.locate(missing), null);
  });

  it('a 429 is waited out and tried again; 429 past the retries, 500 and a non-JSON answer are ChainSourceErrors', async () => {
    fake.failNext(1, 429);
    assert.equal((await source.head()).height, fake.head());
    fake.failNext(4, 429);
    await assert.rejects(
      source.head(),
      (err: ChainSourceError) => err.status === 429 && /rate limited.*API key/.test(err.message),
    );
    fake.failNext(1, 500);
    await assert.rejects(
      source.head(),
      (err: ChainSourceError) => err.status === 500 && /retried next loop/.test(err.message),
    );
    fake.failNext(1, 'malformed');
    await assert.rejects(source.head(), /not JSON.*toncenter's API v3 base/);
    assert.equal((await source.head()).height, fake.head());
  });

  it('many watched addresses are asked in one call per asset, not one per address', async () => {
    const addresses = Array.from({ length: 20 }, () => tonAddress());
    const from = fake.head() + 1;
    fake.payTon(addresses[3] as string, 7n);
    fake.payJetton(addresses[17] as string, 8n, { master: MASTER });
    const before = fake.requests.length;
    const seen = await source.scan(from, fake.head(), {
      coin: addresses.slice(0, 10),
      token: addresses.slice(10),
    });
    assert.deepEqual(
      seen.map((t) => [t.asset, t.address, t.amount]),
      [
        ['coin', addresses[3], 7n],
        ['token', addresses[17], 8n],
      ],
    );
    const calls = fake.requests.slice(before).map((r) => new URL(r.url, 'http://x'));
    const txCalls = calls.filter(
      (u) => u.pathname.endsWith('/transactions') && u.searchParams.has('account'),
    );
    const jettonCalls = calls.filter((u) => u.pathname.endsWith('/jetton/transfers'));
    assert.equal(txCalls.length, 1);
    assert.equal(txCalls[0]?.searchParams.getAll('account').length, 20);
    assert.equal(jettonCalls.length, 1);
    assert.equal(jettonCalls[0]?.searchParams.getAll('owner_address').length, 20);
  });

  it('the network: global_id -239 and the jetton master with 6 decimals; else a mismatch naming the setting', async () => {
    await assert.rejects(source.verifyNetwork(), (err: unknown) => {
      assert.ok(err instanceof ChainMismatchError);
      assert.equal(err.field, 'token_contract');
      assert.match(err.message, /no jetton master at .* on TON mainnet/);
      return true;
    });
    fake.addMaster(MASTER);
    assert.deepEqual(await source.verifyNetwork(), { network: 'TON mainnet (-239)', tokenDecimals: 6 });
    const nine = tonAddress();
    fake.addMaster(nine, { decimals: '9' });
    const wrong = createTonSource({
      info: CHAINS.ton,
      url: fake.url,
      apiKey: null,
      tokenContract: nine,
      chainId: -239,
    });
    await assert.rejects(wrong.verifyNetwork(), /has 9 decimals, not 6/);
    const testnet = createTonSource({
      info: CHAINS.ton,
      url: fake.url,
      apiKey: null,
      tokenContract: MASTER,
      chainId: -3,
    });
    await assert.rejects(testnet.verifyNetwork(), (err: unknown) => {
      assert.ok(err instanceof ChainMismatchError);
      assert.equal(err.field, 'chain_id');
      assert.match(err.message, /serves TON mainnet \(-239\), not TON testnet \(-3\)/);
      return true;
    });
  });

  it('locate re-reads a TON payment: another amount at that hash is an error, never a credit', async () => {
    const to = tonAddress();
    const from = fake.head() + 1;
    fake.payTon(to, 5_000n);
    const [t] = (await source.scan(from, fake.head(), { coin: [to], token: [] })) as [SeenTransfer];
    assert.deepEqual(await source.locate(t), t.block);
    await assert.rejects(source.locate({ ...t, amount: 5_001n }), /no longer pays .* not credited/);
  });
});

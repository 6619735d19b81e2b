import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { CHAINS } from '../../src/rails/chains/chain-catalog.js';
import { ChainMismatchError, ChainSourceError } from '../../src/rails/chains/chain-source.js';
import { chainSources, tronCodec } from '../../src/rails/chains/chain-sources.js';
import { createEvmSource } from '../../src/rails/chains/evm-source.js';
import { startTronFake, type TronFake } from '../helpers/fakes/tron-jsonrpc.js';

// TRON shares the EVM log scanner; its address mapping and TRON's own answers (block
// hashes that start with the number, 20-byte addresses without 41, TronGrid's key header and 429)
// against a loopback java-tron JSON-RPC (test/helpers/fakes/tron-jsonrpc.ts names its source).
const USDT_TRC20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c';
const base58 = createBase58check(sha256);
/** A random TRON account: base58check `T...` and its 20-byte hex. */
const account = () => {
  const bytes = randomBytes(20);
  return { base58: base58.encode(Uint8Array.from([0x41, ...bytes])), hex: `0x${bytes.toString('hex')}` };
};

const settings = (url: string) => ({
  info: CHAINS.tron,
  enabled: true,
  url,
  apiKey: 'trongrid-key',
  confirmations: 19,
  tokenContract: USDT_TRC20,
  pollSeconds: 3,
  chainId: null as number | null,
  genesisHash: null,
  rps: 1000,
});

describe('TRON over java-tron JSON-RPC (the EVM log scanner with TRON addresses)', () => {
  let fake: TronFake;
  let source: ReturnType<typeof chainSources>;
  before(async () => {
    fake = await startTronFake({ blocks: 30 });
    source = chainSources(settings(fake.url));
  });
  after(() => fake.close());

  it('head: eth_blockNumber and the block hash TRON writes (the number first); the key as TRON-PRO-API-KEY', async () => {
    const head = await source.head();
    assert.equal(head.height, fake.head());
    assert.ok(head.hash.startsWith(`0x${head.height.toString(16).padStart(16, '0')}`), head.hash);
    const last = fake.requests.at(-1);
    assert.equal(last?.headers['tron-pro-api-key'], 'trongrid-key');
    assert.equal(last?.headers.authorization, undefined);
  });

  it('a TRC20 transfer to a base58 address: found by its hex topic, reported with the base58 address, positioned in its own transaction', async () => {
    const ours = account();
    const other = account();
    const from = fake.head() + 1;
    const { tx, block } = fake.transfer(USDT_HEX, [
      { to: other.hex, amount: 5n },
      { to: ours.hex, amount: 25_500_000n },
    ]);
    const seen = await source.scan(from, fake.head(), { coin: [], token: [ours.base58] });
    assert.deepEqual(
      seen.map((s) => [s.asset, s.address, s.txHash, s.position, s.amount, s.block?.height, s.block?.hash]),
      [['token', ours.base58, tx.hash, 1, 25_500_000n, block.number, block.hash]],
    );
    const getLogs = fake.requests.find((r) => r.body.method === 'eth_getLogs');
    const filter = getLogs?.body.params[0] as { address: string; topics: [string, null, string[]] };
    assert.equal(filter.address, USDT_HEX);
    assert.deepEqual(filter.topics[2], [`0x${ours.hex.slice(2).padStart(64, '0')}`]);
    assert.deepEqual(await source.locate(seen[0] as never), { height: block.number, hash: block.hash });
  });

  it('a failed transaction (receipt status 0x0) pays nothing; another token contract is not ours', async () => {
    const ours = account();
    const from = fake.head() + 1;
    fake.transfer(USDT_HEX, [{ to: ours.hex, amount: 7n }], '0x0');
    fake.transfer(account().hex, [{ to: ours.hex, amount: 8n }]);
    assert.deepEqual(await source.scan(from, fake.head(), { coin: [], token: [ours.base58] }), []);
  });

  it("TronGrid's 429 is waited out and tried again; past the retries, and a JSON-RPC error, ChainSourceErrors", async () => {
    // The same wiring as chainSources' TRON source, with a short backoff for the test.
    const patient = createEvmSource(
      { info: CHAINS.tron, url: fake.url, apiKey: 'trongrid-key', tokenContract: USDT_TRC20, chainId: null },
      { codec: tronCodec, keyHeader: 'tron-pro-api-key', backoffMs: 5 },
    );
    fake.failNext(1, 429);
    assert.equal((await patient.head()).height, fake.head());
    fake.failNext(4, 429);
    await assert.rejects(
      patient.head(),
      (err: ChainSourceError) => err.status === 429 && /rate limited/.test(err.message),
    );
    fake.failNext(1, 'rpc-error');
    await assert.rejects(
      source.head(),
      (err: Error) => err instanceof ChainSourceError && /server busy/.test(err.message),
    );
    assert.equal((await source.head()).height, fake.head());
  });

  it('the network: TRON mainnet with the USDT contract of 6 decimals; Shasta or Nile for mainnet is refused naming chain_id', async () => {
    fake.addContract(USDT_HEX, 6);
    const mainnet = chainSources({ ...settings(fake.url), chainId: CHAINS.tron.chainId ?? null });
    assert.deepEqual(await mainnet.verifyNetwork(), {
      network: 'TRON mainnet (728126428)',
      tokenDecimals: 6,
    });
    for (const [id, name] of [
      ['0x94a9059e', 'TRON Shasta testnet'],
      ['0xcd8690dc', 'TRON Nile testnet'],
    ] as const) {
      const test = await startTronFake({ chainId: id });
      try {
        await assert.rejects(
          chainSources({ ...settings(test.url), chainId: CHAINS.tron.chainId ?? null }).verifyNetwork(),
          (err: unknown) =>
            err instanceof ChainMismatchError &&
            err.field === 'chain_id' &&
            err.message.includes(`serves ${name}`) &&
            err.message.includes('not TRON mainnet (728126428)'),
        );
      } finally {
        await test.close();
      }
    }
  });

  it('every parameter is sent as java-tron reads it: block numbers in hex with 0x (unprefixed they would be read as decimal), hashes and topics full length', async () => {
    const ours = account();
    const from = fake.head() + 1;
    fake.transfer(USDT_HEX, [{ to: ours.hex, amount: 3n }]);
    fake.requests.length = 0;
    const [seen] = await source.scan(from, fake.head(), { coin: [], token: [ours.base58] });
    assert.ok(seen);
    await source.locate(seen);
    for (const r of fake.requests) {
      const [first] = r.body.params as unknown[];
      if (r.body.method === 'eth_getBlockByNumber') assert.match(String(first), /^0x(0|[1-9a-f][0-9a-f]*)$/);
      if (r.body.method === 'eth_getTransactionReceipt') assert.match(String(first), /^0x[0-9a-f]{64}$/);
      if (r.body.method === 'eth_getLogs') {
        const f = first as { fromBlock: string; toBlock: string };
        assert.match(f.fromBlock, /^0x[1-9a-f][0-9a-f]*$/);
        assert.match(f.toBlock, /^0x[1-9a-f][0-9a-f]*$/);
      }
    }
  });
});

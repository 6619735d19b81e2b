import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAnvil } from '../helpers/anvil.js';
import { onPostgres } from '../helpers/database.js';
import { packageVersion } from '../helpers/evm-nodes.js';
import { type GethStrict, startGethStrict } from '../helpers/fakes/geth-strict.js';
import { evmWatcherScenarios } from './evm-scenarios.js';

// The Ethereum watcher's scenarios through a strict recorder that decodes every parameter as geth
// does (test/helpers/fakes/geth-strict.ts names the go-ethereum files it follows), in front of
// Anvil: a hash without 0x, a quantity with leading zeros, odd-length hex would be refused there as
// geth, erigon and hosted providers refuse them, and every hex string sent must be lower case.
let recorder: GethStrict;

describe('the strict recorder answers malformed parameters as geth does', () => {
  let r: GethStrict;
  before(async () => {
    r = await startGethStrict('http://127.0.0.1:9/');
  });
  after(() => r.close());
  const call = async (method: string, params: unknown[]) =>
    (await (
      await fetch(r.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
    ).json()) as {
      error?: { code: number; message: string };
    };

  it("a receipt asked with a hash without 0x: -32602 and geth's own words", async () => {
    assert.deepEqual((await call('eth_getTransactionReceipt', ['ab'.repeat(32)])).error, {
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash',
    });
    assert.equal(
      (await call('eth_getTransactionReceipt', [`0x${'ab'.repeat(31)}`])).error?.message,
      'invalid argument 0: hex string has length 62, want 64 for common.Hash',
    );
    assert.equal(
      (await call('eth_getTransactionReceipt', [`0x${'ab'.repeat(31)}a`])).error?.message,
      'invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash',
    );
  });

  it('quantities: leading zeros, no prefix and "0x" are refused; filters name the bad address or topic', async () => {
    assert.equal(
      (await call('eth_getBlockByNumber', ['0x01', false])).error?.message,
      'invalid argument 0: hex number with leading zero digits',
    );
    assert.equal(
      (await call('eth_getBlockByNumber', ['16', false])).error?.message,
      'invalid argument 0: hex string without 0x prefix',
    );
    assert.equal(
      (await call('eth_getBlockByNumber', ['0x', false])).error?.message,
      'invalid argument 0: hex string "0x"',
    );
    assert.equal(
      (
        await call('eth_getLogs', [
          { fromBlock: '0x1', toBlock: '0x2', address: 'dac17f958d2ee523a2206206994597c13d831ec7' },
        ])
      ).error?.message,
      'invalid argument 0: invalid address: hex string without 0x prefix',
    );
    assert.equal(
      (
        await call('eth_getLogs', [
          { fromBlock: '0x1', toBlock: '0x2', topics: [null, null, [`0x${'00'.repeat(20)}`]] },
        ])
      ).error?.message,
      'invalid argument 0: hex has invalid length 20 after decoding; expected 32 for topic',
    );
  });

  it('upper case and 0X are taken, as geth takes them, but recorded as not canonical', async () => {
    const before = r.calls.length;
    await call('eth_getTransactionReceipt', [`0X${'AB'.repeat(32)}`]).catch(() => undefined);
    const [recorded] = r.calls.slice(before);
    assert.equal(recorded?.refused, null);
    assert.equal(recorded?.canonical, false);
  });
});

evmWatcherScenarios(
  `the Ethereum watcher through a strict geth-style recorder (Anvil ${packageVersion('@foundry-rs/anvil')} behind it)`,
  {
    skip: onPostgres()
      ? 'node conformance does not depend on the database: on PostgreSQL only the Anvil file runs these scenarios'
      : false,
    async start() {
      const anvil = await startAnvil();
      recorder = await startGethStrict(anvil.url);
      return {
        node: { ...anvil, name: 'Anvil' },
        url: recorder.url,
        stop: async () => {
          await recorder.close();
          await anvil.stop();
        },
      };
    },
    afterAll() {
      assert.deepEqual(recorder.refused(), [], 'nothing geth would refuse was sent');
      assert.deepEqual(recorder.nonCanonical(), [], 'every hex string sent was 0x and lower case');
      const receipts = recorder.calls.filter((c) => c.method === 'eth_getTransactionReceipt');
      assert.ok(receipts.length > 0);
      assert.ok(
        receipts.every((c) => /^0x[0-9a-f]{64}$/.test(String(c.params[0]))),
        'receipts asked with 0x hashes',
      );
      const methods = new Set(recorder.calls.map((c) => c.method));
      for (const m of [
        'eth_chainId',
        'eth_getCode',
        'eth_call',
        'eth_blockNumber',
        'eth_getBlockByNumber',
        'eth_getLogs',
        'eth_getTransactionByHash',
      ])
        assert.ok(methods.has(m), `${m} was exercised`);
    },
  },
);

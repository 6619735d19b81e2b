import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CHAINS } from '../../src/rails/chains/chain-catalog.js';
import {
  ChainMismatchError,
  ChainSourceError,
  type SeenTransfer,
  type SourceSettings,
} from '../../src/rails/chains/chain-source.js';
import {
  createEsploraSource,
  ESPLORA_CONCURRENCY,
  ESPLORA_MAX_PAGES,
} from '../../src/rails/chains/esplora-source.js';
import { type EsploraFake, fakeTx, startEsploraFake } from '../helpers/fakes/esplora.js';

const A = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const B = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
const OTHER = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';

const settingsFor = (url: string, extra: Partial<SourceSettings> = {}): SourceSettings => ({
  info: CHAINS.bitcoin,
  url,
  apiKey: null,
  tokenContract: null,
  chainId: null,
  ...extra,
});
const coin = (...addresses: string[]) => ({ coin: addresses, token: [] });
/** A ChainSourceError with this HTTP status (undefined: none) whose message matches. */
const sourceError = (status: number | undefined, message: RegExp) => (err: unknown) => {
  assert.ok(err instanceof ChainSourceError, `not a ChainSourceError: ${String(err)}`);
  assert.equal(err.status, status);
  assert.match(err.message, message);
  return true;
};
const addressRequests = (fake: EsploraFake, a: string) =>
  fake.requests
    .filter((r) => r.path.startsWith(`/address/${a}/`))
    .map((r) => r.path.slice(`/address/${a}`.length));

let fake: EsploraFake;
let source: ReturnType<typeof createEsploraSource>;
beforeEach(async () => {
  fake = await startEsploraFake();
  source = createEsploraSource(settingsFor(fake.url));
});
afterEach(() => fake.close());

describe('esplora source: blocks', () => {
  it('head is the tip height with the hash of that height; blockHash is null above the tip', async () => {
    fake.mineEmpty(3);
    assert.deepEqual(await source.head(), { height: 3, hash: fake.blocks[3]?.hash });
    assert.equal(await source.blockHash(2), fake.blocks[2]?.hash);
    assert.notEqual(fake.blocks[2]?.hash, fake.blocks[3]?.hash);
    assert.equal(await source.blockHash(4), null);
    assert.equal(source.maxRange >= 1000, true);
  });
});

describe('esplora source: scan', () => {
  it('one transfer per output paying a watched address, positioned by output index', async () => {
    const pay = fakeTx([
      { address: A, value: 150_000 },
      { address: OTHER, value: 7 },
      { address: null, value: 0 },
      { address: B, value: 2_500 },
    ]);
    const block1 = fake.mine([pay]);
    // A spend from A (its history lists it) pays no watched address: no transfer.
    fake.mine([fakeTx([{ address: OTHER, value: 140_000 }], [{ address: A, value: 150_000 }])]);
    const found = await source.scan(1, 2, { coin: [A, B, A], token: ['ignored'] });
    const block = { height: 1, hash: block1.hash };
    assert.deepEqual(found, [
      { asset: 'coin', address: A, txHash: pay.txid, position: 0, amount: 150_000n, block },
      { asset: 'coin', address: B, txHash: pay.txid, position: 3, amount: 2_500n, block },
    ] satisfies SeenTransfer[]);
  });

  it('amounts are exact integers of satoshis (bigint), near the whole supply', async () => {
    const big = fakeTx([
      { address: A, value: 2_099_999_997_690_000 },
      { address: A, value: 1 },
    ]);
    fake.mine([big]);
    const found = await source.scan(1, 1, coin(A));
    assert.deepEqual(
      found.map((t) => t.amount),
      [2_099_999_997_690_000n, 1n],
    );
    // Litecoin's supply (84e6 LTC = 8.4e15 litoshis) is still below 2^53: exact too.
    fake.mine([fakeTx([{ address: B, value: 8_399_999_999_999_999 }])]);
    const ltc = createEsploraSource(settingsFor(fake.url, { info: CHAINS.litecoin }));
    assert.equal((await ltc.scan(2, 2, coin(B)))[0]?.amount, 8_399_999_999_999_999n);
  });

  it('a value past 2^53 cannot be read exactly: an error, never a rounded amount', async () => {
    fake.mine([fakeTx([{ address: A, value: 2n ** 53n + 1n }])]);
    await assert.rejects(source.scan(1, 1, coin(A)), sourceError(undefined, /integer values/));
  });

  it('pages through more than 25 confirmed transactions, newest first, and stops below `from`', async () => {
    const txs = Array.from({ length: 60 }, (_, i) => fakeTx([{ address: A, value: 1_000 + i }]));
    for (const tx of txs) fake.mine([tx]); // heights 1..60
    const all = await source.scan(1, 60, coin(A));
    assert.deepEqual(
      all.map((t) => t.block?.height),
      Array.from({ length: 60 }, (_, i) => 60 - i),
    );
    assert.deepEqual(
      all.map((t) => t.txHash),
      txs.map((t) => t.txid).reverse(),
    );
    const pages = addressRequests(fake, A);
    assert.equal(pages[0], '/txs');
    assert.equal(pages[1], `/txs/chain/${txs[35]?.txid}`); // the 25th newest: height 36
    assert.equal(pages[2], `/txs/chain/${txs[10]?.txid}`);
    assert.equal(pages.length, 4); // the 4th page is empty: the history ended

    fake.requests.length = 0;
    const recent = await source.scan(50, 60, coin(A));
    assert.deepEqual(
      recent.map((t) => t.block?.height),
      [60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50],
    );
    // Height 36 < 50 was on the first page: no more pages asked for.
    assert.deepEqual(addressRequests(fake, A), ['/txs']);
  });

  it(`fails clearly past ${ESPLORA_MAX_PAGES} pages for one address`, async () => {
    const perBlock = 25;
    const count = ESPLORA_MAX_PAGES * 25 + 1;
    for (let i = 0; i < count; i += perBlock)
      fake.mine(
        Array.from({ length: Math.min(perBlock, count - i) }, () => fakeTx([{ address: A, value: 5 }])),
      );
    await assert.rejects(
      source.scan(1, fake.tip.height, coin(A)),
      sourceError(undefined, new RegExp(`${A} has more than 500 transactions at or above block 1`)),
    );
    assert.equal(addressRequests(fake, A).length, ESPLORA_MAX_PAGES);
    // Only the newest block's range: one page is enough.
    assert.equal((await source.scan(fake.tip.height, fake.tip.height, coin(A))).length, 1);
  });

  it('a mempool transaction has block null, then its block once mined', async () => {
    fake.mineEmpty(1);
    const tx = fakeTx([{ address: A, value: 42_000 }]);
    fake.addMempool(tx);
    const before = await source.scan(1, 1, coin(A));
    assert.deepEqual(before, [
      { asset: 'coin', address: A, txHash: tx.txid, position: 0, amount: 42_000n, block: null },
    ] satisfies SeenTransfer[]);
    assert.equal(await source.locate(before[0] as SeenTransfer), 'unconfirmed');
    const mined = fake.mine([tx]);
    const after = await source.scan(2, 2, coin(A));
    assert.deepEqual(
      after.map((t) => t.block),
      [{ height: 2, hash: mined.hash }],
    );
    assert.deepEqual(await source.locate(before[0] as SeenTransfer), { height: 2, hash: mined.hash });
  });

  it('reads addresses a few at a time', async () => {
    const slow = await startEsploraFake({ delayMs: 15 });
    try {
      const addresses = Array.from({ length: 8 }, (_, i) => `bc1qtest${i}`);
      slow.mine(addresses.map((a) => fakeTx([{ address: a, value: 1 }])));
      const found = await createEsploraSource(settingsFor(slow.url)).scan(1, 1, coin(...addresses));
      assert.deepEqual(
        found.map((t) => t.address),
        addresses,
      );
      assert.ok(slow.maxInFlight <= ESPLORA_CONCURRENCY, `in flight: ${slow.maxInFlight}`);
      assert.ok(slow.maxInFlight > 1, 'addresses were read one by one');
    } finally {
      await slow.close();
    }
  });

  it('fails (to be retried) when the last seen transaction leaves the chain between two pages', async () => {
    const txs = Array.from({ length: 30 }, () => fakeTx([{ address: A, value: 3 }]));
    for (const tx of txs) fake.mine([tx]); // heights 1..30; the 25th newest at height 6
    const reorging = createEsploraSource(settingsFor(fake.url), {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        // Right after the first page: blocks 6.. are replaced, the page's last txid is gone.
        if (String(input).endsWith(`/address/${A}/txs`)) fake.reorg(6, [[], []]);
        return res;
      },
    });
    await assert.rejects(reorging.scan(1, 30, coin(A)), sourceError(undefined, /left block 6 .*reorg/));
  });
});

describe('esplora source: locate after a reorg', () => {
  it('a dropped transaction is null; a moved one is in its new block', async () => {
    const dropped = fakeTx([{ address: A, value: 10 }]);
    const moved = fakeTx([{ address: B, value: 20 }]);
    const old = fake.mine([dropped, moved]);
    fake.mineEmpty(1);
    const [tDropped, tMoved] = (await source.scan(1, 2, coin(A, B))) as [SeenTransfer, SeenTransfer];
    assert.deepEqual(tMoved.block, { height: 1, hash: old.hash });
    const [, newTwo] = fake.reorg(1, [[], [moved]]);
    assert.equal(await source.locate(tDropped), null);
    assert.deepEqual(await source.locate(tMoved), { height: 2, hash: newTwo?.hash });
    assert.notEqual(await source.blockHash(1), old.hash);
  });

  it('an unknown transaction is null (404 on /tx/:txid; /status would answer {"confirmed":false})', async () => {
    const strict = await startEsploraFake({ unknownTx: 404 });
    try {
      const s = createEsploraSource(settingsFor(strict.url));
      const tx = fakeTx([{ address: A, value: 10 }]);
      strict.mine([tx]);
      const [t] = (await s.scan(1, 1, coin(A))) as [SeenTransfer];
      assert.deepEqual(await s.locate(t), { height: 1, hash: strict.blocks[1]?.hash });
      strict.reorg(1, [[]]);
      assert.equal(await s.locate(t), null);
      assert.equal(strict.requests.at(-1)?.path, `/tx/${tx.txid}`);
    } finally {
      await strict.close();
    }
  });
});

describe('esplora source: provider failures', () => {
  it('a 429 is waited out with backoff and tried again; past the retries a ChainSourceError says what to do', async () => {
    const patient = createEsploraSource(settingsFor(fake.url), { backoffMs: 5 });
    fake.failNext(2, 429);
    assert.equal((await patient.head()).height, 0);
    assert.equal(fake.requests.filter((r) => r.path === '/blocks/tip/height').length, 3);
    fake.failNext(4, 429);
    await assert.rejects(
      patient.head(),
      sourceError(429, /rate limited by the provider \(429\) after 3 retries.*raise poll_seconds/),
    );
    assert.equal((await patient.head()).height, 0); // the next request is answered again
  });

  it('500 is a ChainSourceError with its status', async () => {
    fake.failNext(1, 500);
    await assert.rejects(source.scan(0, 0, coin(A)), sourceError(500, /HTTP 500.*Internal Server Error/));
  });

  it('malformed and wrongly shaped answers are ChainSourceErrors', async () => {
    const t: SeenTransfer = {
      asset: 'coin',
      address: A,
      txHash: 'ab'.repeat(32),
      position: 0,
      amount: 1n,
      block: null,
    };
    fake.failNext(1, 'malformed');
    await assert.rejects(source.locate(t), sourceError(undefined, /not JSON/));
    fake.failNext(1, 'wrong-shape');
    await assert.rejects(source.scan(0, 0, coin(A)), sourceError(undefined, /without txid/));
    fake.failNext(1, 'wrong-shape');
    await assert.rejects(source.head(), sourceError(undefined, /not a block height.*API base/));
    fake.failNext(1, 'wrong-shape');
    await assert.rejects(source.locate(t), sourceError(undefined, /without txid/));
  });

  it('an unreachable provider and a timeout are ChainSourceErrors without status', async () => {
    const closed = await startEsploraFake();
    await closed.close();
    await assert.rejects(
      createEsploraSource(settingsFor(closed.url)).head(),
      sourceError(undefined, /could not reach the provider/),
    );
    let signal: AbortSignal | null | undefined;
    const timingOut = createEsploraSource(settingsFor(fake.url), {
      fetch: async (_input, init) => {
        signal = init?.signal;
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      },
    });
    await assert.rejects(timingOut.blockHash(0), sourceError(undefined, /no answer within 10 s/));
    assert.ok(signal instanceof AbortSignal);
  });
});

describe('esplora source: URL and key', () => {
  it('joins paths under the base (with or without a trailing slash) and sends the key as a bearer', async () => {
    const api = await startEsploraFake({ prefix: '/api' });
    try {
      await createEsploraSource(settingsFor(`${api.url}/`, { apiKey: 'k-123' })).head();
      await createEsploraSource(settingsFor(api.url)).blockHash(0);
      assert.deepEqual(
        api.requests.map((r) => [r.path, r.headers.authorization]),
        [
          ['/api/blocks/tip/height', 'Bearer k-123'],
          ['/api/block-height/0', 'Bearer k-123'],
          ['/api/block-height/0', undefined],
        ],
      );
    } finally {
      await api.close();
    }
  });
});

describe('esplora source: what it checks before it believes', () => {
  it("the network: /block-height/0 must be the chain's genesis, else a mismatch naming genesis_hash", async () => {
    assert.deepEqual(await source.verifyNetwork(), {
      network: `Bitcoin mainnet (${CHAINS.bitcoin.genesisHash})`,
      tokenDecimals: null,
    });
    const testnet = await startEsploraFake({
      genesis: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
    });
    try {
      await assert.rejects(createEsploraSource(settingsFor(testnet.url)).verifyNetwork(), (err: unknown) => {
        assert.ok(err instanceof ChainMismatchError);
        assert.equal(err.field, 'genesis_hash');
        assert.match(err.message, /serves Bitcoin testnet3 .*not Bitcoin mainnet/);
        return true;
      });
      const given = createEsploraSource(
        settingsFor(testnet.url, {
          genesisHash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
        }),
      );
      assert.match((await given.verifyNetwork()).network, /testnet3/);
    } finally {
      await testnet.close();
    }
  });

  it('locate re-reads the output: one that no longer pays the address what was seen is an error, never a credit', async () => {
    const tx = fakeTx([{ address: A, value: 5000 }]);
    fake.mine([tx]);
    const [t] = (await source.scan(1, 1, coin(A))) as [SeenTransfer];
    assert.deepEqual(await source.locate(t), { height: 1, hash: fake.blocks[1]?.hash });
    await assert.rejects(
      source.locate({ ...t, amount: 5001n }),
      sourceError(undefined, /no longer pays .* not credited/),
    );
    await assert.rejects(source.locate({ ...t, address: B }), sourceError(undefined, /no longer pays/));
  });

  it('scans see the mempool every poll (seesMempool): a payment is seen before its block', () => {
    assert.equal(source.seesMempool, true);
  });
});

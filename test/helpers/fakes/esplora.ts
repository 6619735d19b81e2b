// A loopback fake of Esplora's REST API, following:
//   https://github.com/Blockstream/esplora/blob/master/API.md (commit a51df73e29bda58fca26d19ddcd277731ab11b7b,
//   2026-08-21), and where API.md is silent, the server itself: Blockstream/electrs src/rest.rs,
//   src/util/transaction.rs, src/new_index/schema.rs (branch new-index, commit abfbce73eb05, 2021-06-25):
//   - GET /blocks/tip/height, /blocks/tip/hash, /block-height/:h answer text/plain; above the tip
//     /block-height 404s with "Block not found"; a non-number height is 400 "Invalid number".
//   - GET /address/:a/txs: up to 50 mempool transactions then the first 25 confirmed, newest first;
//     GET /address/:a/txs/chain[/:last_seen_txid]: 25 confirmed after last_seen_txid. electrs skips
//     rows until it meets last_seen_txid, so an id no longer in the history gives an empty page; an id
//     that is not 64 hex is ignored (first page). GET /address/:a/txs/mempool: up to 50.
//   - GET /tx/:txid/status: {"confirmed":true,"block_height","block_hash","block_time"}, else
//     {"confirmed":false} with the other fields absent (skip_serializing_if), also for an unknown
//     txid (electrs); `unknownTx: 404` answers 404 instead, as some other backends do. A txid that
//     is not hex is 400 "Invalid hash string".
//   - Transactions: txid, version, locktime, vin[] (with prevout), vout[] (scriptpubkey,
//     scriptpubkey_asm, scriptpubkey_type, scriptpubkey_address when the script has one, value in
//     satoshis as a JSON integer), size, weight, fee, status. Errors are text/plain.
//   - GET /tx/:txid: 404 "Transaction not found" for a txid the server does not hold (electrs
//     src/rest.rs, `HttpError::not_found`).
//   - Block 0 is the network's genesis: Bitcoin mainnet 000000000019d6...8ce26f by default (Bitcoin
//     Core src/kernel/chainparams.cpp), or `genesis` for another network.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An output (or a spent prevout): `address` null for a script without one (OP_RETURN). */
export interface FakeOutput {
  address: string | null;
  /** Satoshis; a bigint is written as the exact JSON integer (to send values past 2^53). */
  value: number | bigint;
}
export interface FakeTx {
  txid: string;
  vout: FakeOutput[];
  /** The prevouts it spends (an address's history lists its spends too). */
  vin: FakeOutput[];
}
export interface FakeBlock {
  height: number;
  hash: string;
  time: number;
  txs: FakeTx[];
}
/** What the next requests get instead of an answer. */
export type FakeFailure = 429 | 500 | 'malformed' | 'wrong-shape';

const CHAIN_PAGE = 25;
/** Bitcoin mainnet's genesis block hash. */
export const BITCOIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
/** Litecoin mainnet's genesis block hash. */
export const LITECOIN_GENESIS = '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2';
const MEMPOOL_MAX = 50;
const HEX64 = /^[0-9a-f]{64}$/i;

/** A transaction paying `vout` (and spending `vin`), with a random txid. */
export function fakeTx(vout: FakeOutput[], vin: FakeOutput[] = []): FakeTx {
  return { txid: randomBytes(32).toString('hex'), vout, vin };
}

/**
 * Starts the fake on 127.0.0.1 (port 0) with a genesis block at height 0. `prefix` is a path the
 * API lives under (as `/api` on blockstream.info); `delayMs` delays every answer (to observe
 * concurrency). The chain is mutated with mine/mineEmpty/addMempool/reorg; `failNext` makes the next
 * requests fail. Every request is recorded with its path and headers.
 */
export async function startEsploraFake(
  opts: { prefix?: string; delayMs?: number; unknownTx?: 404; genesis?: string } = {},
) {
  const prefix = opts.prefix ?? '';
  const blocks: FakeBlock[] = [];
  const mempool: FakeTx[] = [];
  const requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const failures: FakeFailure[] = [];
  let salt = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const newBlock = (txs: FakeTx[]): FakeBlock => {
    const height = blocks.length;
    const hash =
      height === 0
        ? (opts.genesis ?? BITCOIN_GENESIS)
        : createHash('sha256').update(`${height}:${salt++}`).digest('hex');
    const block = { height, hash, time: 1_700_000_000 + height * 600, txs };
    blocks.push(block);
    for (const tx of txs) {
      const i = mempool.findIndex((m) => m.txid === tx.txid);
      if (i >= 0) mempool.splice(i, 1);
    }
    return block;
  };
  newBlock([]);

  const blockOf = (txid: string) => blocks.find((b) => b.txs.some((t) => t.txid === txid));
  const status = (block: FakeBlock | undefined) =>
    block
      ? { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time }
      : { confirmed: false };
  const touches = (tx: FakeTx, a: string) => [...tx.vout, ...tx.vin].some((o) => o.address === a);
  const output = (o: FakeOutput) => ({
    scriptpubkey: o.address ? `0014${'ab'.repeat(20)}` : '6a',
    scriptpubkey_asm: o.address ? 'OP_0 OP_PUSHBYTES_20 abab' : 'OP_RETURN',
    scriptpubkey_type: o.address ? 'v0_p2wpkh' : 'op_return',
    ...(o.address ? { scriptpubkey_address: o.address } : {}),
    value: o.value,
  });
  const txJson = (tx: FakeTx, block: FakeBlock | undefined) => ({
    txid: tx.txid,
    version: 2,
    locktime: 0,
    vin: tx.vin.map((p, i) => ({
      txid: createHash('sha256').update(`${tx.txid}:${i}`).digest('hex'),
      vout: 0,
      prevout: output(p),
      scriptsig: '',
      scriptsig_asm: '',
      witness: ['30440220', '02ab'],
      is_coinbase: false,
      sequence: 4294967293,
    })),
    vout: tx.vout.map(output),
    size: 222,
    weight: 561,
    fee: 1410,
    status: status(block),
  });
  /** Confirmed history, newest first (electrs scans its index in reverse: height descending). */
  const chainHistory = (a: string) =>
    blocks
      .slice()
      .reverse()
      .flatMap((b) =>
        b.txs
          .slice()
          .reverse()
          .filter((t) => touches(t, a))
          .map((t) => txJson(t, b)),
      );
  const mempoolHistory = (a: string) =>
    mempool
      .slice()
      .reverse()
      .filter((t) => touches(t, a))
      .slice(0, MEMPOOL_MAX)
      .map((t) => txJson(t, undefined));

  type Answer = { status: number; body: string; type?: string };
  const text = (body: string | number, code = 200): Answer => ({ status: code, body: String(body) });
  const json = (value: unknown): Answer => ({
    status: 200,
    body: stringify(value),
    type: 'application/json',
  });

  function route(path: string): Answer {
    const p = path.split('/').slice(1).map(decodeURIComponent);
    const tip = blocks[blocks.length - 1] as FakeBlock;
    if (p[0] === 'blocks' && p[1] === 'tip' && p.length === 3) {
      if (p[2] === 'height') return text(tip.height);
      if (p[2] === 'hash') return text(tip.hash);
    }
    if (p[0] === 'block-height' && p.length === 2) {
      if (!/^\d+$/.test(p[1] ?? '')) return text('Invalid number', 400);
      const block = blocks[Number(p[1])];
      return block ? text(block.hash) : text('Block not found', 404);
    }
    if (p[0] === 'address' && p[2] === 'txs' && p.length <= 5) {
      const a = p[1] ?? '';
      if (p.length === 3) return json([...mempoolHistory(a), ...chainHistory(a).slice(0, CHAIN_PAGE)]);
      if (p[3] === 'mempool' && p.length === 4) return json(mempoolHistory(a));
      if (p[3] === 'chain') {
        const last = p[4] && HEX64.test(p[4]) ? p[4].toLowerCase() : undefined;
        let history = chainHistory(a);
        if (last) history = history.slice(history.findIndex((t) => t.txid === last) + 1 || history.length);
        return json(history.slice(0, CHAIN_PAGE));
      }
    }
    if (p[0] === 'tx' && (p.length === 2 || (p.length === 3 && p[2] === 'status'))) {
      const txid = (p[1] ?? '').toLowerCase();
      if (!HEX64.test(txid)) return text('Invalid hash string', 400);
      const block = blockOf(txid);
      const tx = block?.txs.find((t) => t.txid === txid) ?? mempool.find((t) => t.txid === txid);
      if (p.length === 2) return tx ? json(txJson(tx, block)) : text('Transaction not found', 404);
      if (!tx && opts.unknownTx === 404) return text('Transaction not found', 404);
      return json(status(block));
    }
    return text(`endpoint does not exist ${JSON.stringify(path)}`, 404);
  }

  function answer(method: string, path: string): Answer {
    const failure = failures.shift();
    if (failure === 429) return text('Too Many Requests', 429);
    if (failure === 500) return text('Internal Server Error', 500);
    if (failure === 'malformed') return { status: 200, body: '{"txid":"ab', type: 'application/json' };
    if (failure === 'wrong-shape') return json([{ unexpected: true }]);
    if (method !== 'GET') return text('Invalid method', 405);
    if (!path.startsWith(`${prefix}/`)) return text('not found', 404);
    return route(path.slice(prefix.length));
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push({ path, headers: req.headers });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const a = answer(req.method ?? '', path);
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(a.status, {
        'content-type': a.type ?? 'text/plain',
        'cache-control': 'public, max-age=10',
      });
      res.end(a.body);
    }, opts.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    /** The API base to configure (with the prefix, without a trailing slash). */
    url: `http://127.0.0.1:${port}${prefix}`,
    blocks,
    mempool,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get tip(): FakeBlock {
      return blocks[blocks.length - 1] as FakeBlock;
    },
    /** Mines a block at tip + 1 holding `txs` (taken out of the mempool). */
    mine(txs: FakeTx[] = []): FakeBlock {
      return newBlock(txs);
    },
    mineEmpty(n: number): void {
      for (let i = 0; i < n; i++) newBlock([]);
    },
    addMempool(...txs: FakeTx[]): void {
      mempool.push(...txs);
    },
    /**
     * Replaces the blocks from `height` up with new ones holding `replacement[i]` (new hashes). The
     * old blocks' transactions not re-mined are gone (not returned to the mempool).
     */
    reorg(height: number, replacement: FakeTx[][]): FakeBlock[] {
      blocks.splice(height);
      return replacement.map((txs) => newBlock(txs));
    },
    /** The next `n` requests get `kind` instead of their answer. */
    failNext(n: number, kind: FakeFailure): void {
      for (let i = 0; i < n; i++) failures.push(kind);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type EsploraFake = Awaited<ReturnType<typeof startEsploraFake>>;

/** JSON with bigints written as exact integers (JSON.stringify refuses bigints). */
function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__bigint:${v}` : v)).replace(
    /"__bigint:(\d+)"/g,
    '$1',
  );
}

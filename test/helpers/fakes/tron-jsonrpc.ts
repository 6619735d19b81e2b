// A loopback fake of java-tron's Ethereum-style JSON-RPC (a full node's /jsonrpc, TronGrid's
// https://api.trongrid.io/jsonrpc), following TRON's own documentation: tronprotocol/documentation-zh
// docs/api/json-rpc.md (commit 2d45050, the page developers.tron.network/reference/json-rpc
// translates): eth_chainId answers the genesis hash's last 4 bytes (mainnet 0x2b6653dc);
// eth_blockNumber a QUANTITY; eth_getBlockByNumber a block whose hash starts with the block number
// (8 bytes) and null above the head; addresses are 20-byte hex WITHOUT TRON's 41 prefix; receipts
// {blockHash, blockNumber, contractAddress: null, cumulativeGasUsed, effectiveGasPrice, from,
// gasUsed, logs[], logsBloom, status "0x1"|"0x0", to, transactionHash, transactionIndex, type};
// logs {address, blockHash, blockNumber, data, logIndex (block-wide), removed: false, topics,
// transactionHash, transactionIndex}; transaction hashes are taken with or without 0x. Errors are
// JSON-RPC error objects; TronGrid's rate limit is an HTTP 429. The API key comes as TRON-PRO-API-KEY.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const hexQ = (n: number | bigint) => `0x${n.toString(16)}`;
const word = (hex20: string) => `0x${hex20.replace(/^0x/, '').padStart(64, '0')}`;

interface FakeLog {
  address: string;
  topics: string[];
  data: string;
}
interface FakeTx {
  hash: string;
  status: '0x1' | '0x0';
  logs: FakeLog[];
}
interface FakeBlock {
  number: number;
  hash: string;
  txs: FakeTx[];
}
/** What the next requests get instead of an answer. */
export type TronFailure = 429 | 'rpc-error';

export type TronFake = Awaited<ReturnType<typeof startTronFake>>;

/** Starts the fake on 127.0.0.1 (port 0) with `blocks` empty blocks; `url` ends with /jsonrpc. */
export async function startTronFake(opts: { blocks?: number } = {}) {
  const blocks: FakeBlock[] = [];
  const requests: Array<{ body: { method: string; params: unknown[] }; headers: IncomingHttpHeaders }> = [];
  const failures: TronFailure[] = [];

  const mine = (txs: FakeTx[]): FakeBlock => {
    const number = blocks.length;
    const hash = `0x${number.toString(16).padStart(16, '0')}${randomBytes(24).toString('hex')}`;
    const block = { number, hash, txs };
    blocks.push(block);
    return block;
  };
  for (let i = 0; i < (opts.blocks ?? 10); i++) mine([]);

  const receiptOf = (block: FakeBlock, txIndex: number) => {
    const tx = block.txs[txIndex] as FakeTx;
    const before = block.txs.slice(0, txIndex).reduce((n, t) => n + t.logs.length, 0);
    return {
      blockHash: block.hash,
      blockNumber: hexQ(block.number),
      contractAddress: null,
      cumulativeGasUsed: '0x646e2',
      effectiveGasPrice: '0xd2',
      from: `0x${randomBytes(20).toString('hex')}`,
      gasUsed: '0x0',
      logs: tx.logs.map((l, i) => ({
        ...l,
        blockHash: block.hash,
        blockNumber: hexQ(block.number),
        logIndex: hexQ(before + i),
        removed: false,
        transactionHash: tx.hash,
        transactionIndex: hexQ(txIndex),
      })),
      logsBloom: `0x${'0'.repeat(512)}`,
      status: tx.status,
      to: tx.logs[0]?.address ?? null,
      transactionHash: tx.hash,
      transactionIndex: hexQ(txIndex),
      type: '0x0',
    };
  };

  function call(method: string, params: unknown[]): unknown {
    switch (method) {
      case 'eth_chainId':
        return '0x2b6653dc';
      case 'eth_blockNumber':
        return hexQ(blocks.length - 1);
      case 'eth_getBlockByNumber': {
        const block = blocks[Number(params[0])];
        if (!block) return null;
        return {
          number: hexQ(block.number),
          hash: block.hash,
          parentHash: blocks[block.number - 1]?.hash ?? `0x${'0'.repeat(64)}`,
          nonce: null,
          timestamp: hexQ(1_760_000_000 + block.number * 3),
          transactions: block.txs.map((t) => t.hash),
        };
      }
      case 'eth_getTransactionReceipt': {
        const hash = `0x${String(params[0]).replace(/^0x/, '').toLowerCase()}`;
        for (const block of blocks) {
          const i = block.txs.findIndex((t) => t.hash === hash);
          if (i >= 0) return receiptOf(block, i);
        }
        return null;
      }
      case 'eth_getLogs': {
        const f = params[0] as { fromBlock: string; toBlock: string; address?: string; topics?: unknown[] };
        const wanted = (f.topics?.[2] as string[] | null) ?? null;
        const out: unknown[] = [];
        for (const block of blocks.slice(Number(f.fromBlock), Number(f.toBlock) + 1))
          block.txs.forEach((t, i) => {
            if (t.status !== '0x1') return;
            for (const log of receiptOf(block, i).logs) {
              if (f.address && log.address !== f.address.toLowerCase()) continue;
              if (log.topics[0] !== f.topics?.[0]) continue;
              if (wanted && !wanted.includes(log.topics[2] as string)) continue;
              out.push(log);
            }
          });
        return out;
      }
      default:
        throw Object.assign(new Error(`the method ${method} does not exist/is not available`), {
          code: -32601,
        });
    }
  }

  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const body = JSON.parse(text) as { id: number; method: string; params: unknown[] };
      requests.push({ body, headers: req.headers });
      const failure = failures.shift();
      if (failure === 429)
        return res.writeHead(429, { 'content-type': 'text/plain' }).end('Too Many Requests');
      const reply = (payload: Record<string, unknown>) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...payload }));
      if (failure === 'rpc-error')
        return reply({ error: { code: -32000, message: 'server busy', data: '{}' } });
      try {
        reply({ result: call(body.method, body.params) });
      } catch (err) {
        reply({
          error: { code: (err as { code?: number }).code ?? -32000, message: (err as Error).message },
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/jsonrpc`,
    requests,
    head: () => blocks.length - 1,
    mineEmpty(n: number) {
      for (let i = 0; i < n; i++) mine([]);
    },
    /**
     * One transaction of the TRC20 contract `contractHex` (20-byte hex) in a new block, with a
     * Transfer log per `to` (20-byte hex) of its amount; `status` 0x0: a failed transaction.
     */
    transfer(
      contractHex: string,
      pays: Array<{ to: string; amount: bigint }>,
      status: '0x1' | '0x0' = '0x1',
    ) {
      const from = randomBytes(20).toString('hex');
      const tx: FakeTx = {
        hash: `0x${randomBytes(32).toString('hex')}`,
        status,
        logs: pays.map((p) => ({
          address: contractHex.toLowerCase(),
          topics: [TRANSFER, word(from), word(p.to.toLowerCase())],
          data: word(p.amount.toString(16)),
        })),
      };
      // Another transaction first, so that block-wide log indexes differ from positions in the tx.
      const other: FakeTx = {
        hash: `0x${randomBytes(32).toString('hex')}`,
        status: '0x1',
        logs: [
          { address: contractHex.toLowerCase(), topics: [TRANSFER, word(from), word(from)], data: word('1') },
        ],
      };
      return { tx, block: mine([other, tx]) };
    },
    failNext(n: number, failure: TronFailure) {
      for (let i = 0; i < n; i++) failures.push(failure);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

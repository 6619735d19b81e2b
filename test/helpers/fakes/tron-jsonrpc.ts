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
// Parameters are read as java-tron reads them (tronprotocol/java-tron commit 1e35f79a, 2025-05-12):
// TronJsonRpcImpl.hashToByteArray takes HASH_REGEX "(0x)?[a-zA-Z0-9]{64}$" (else -32602 "invalid
// hash value"); Wallet.getByJsonBlockId and ByteArray.hexToBigInteger read a block number as hex
// after 0x and as DECIMAL without it ("16" is block 16, not 22); JsonRpcApiUtil.addressToByteArray
// wants 20-byte hex ("invalid address: ..."), topicToByteArray 32 bytes ("invalid topic: ...");
// eth_getCode (getABIOfSmartContract) and eth_call take "latest" only. `chainId` picks the network:
// mainnet 0x2b6653dc, Shasta 0x94a9059e, Nile 0xcd8690dc.
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
export async function startTronFake(opts: { blocks?: number; chainId?: string } = {}) {
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

  const invalid = (message: string) => Object.assign(new Error(message), { code: -32602 });
  /** java-tron's block number: hex after 0x, decimal without. */
  const blockNumberOf = (v: unknown): number => {
    const s = String(v);
    if (s === 'latest') return blocks.length - 1;
    const n = s.startsWith('0x') ? Number.parseInt(s.slice(2), 16) : /^\d+$/.test(s) ? Number(s) : Number.NaN;
    if (Number.isNaN(n)) throw invalid('invalid block number');
    return n;
  };
  const hashOf = (v: unknown): string => {
    if (typeof v !== 'string' || !/^(0x)?[a-zA-Z0-9]{64}$/.test(v)) throw invalid('invalid hash value');
    return `0x${v.replace(/^0x/, '').toLowerCase()}`;
  };
  const addressOf = (v: unknown): string => {
    const hex = String(v).replace(/^0x/, '');
    if (!/^[0-9a-fA-F]{40}$/.test(hex)) throw invalid(`invalid address: ${String(v)}`);
    return `0x${hex.toLowerCase()}`;
  };
  /** Contracts with code: every TRC20 contract a transfer was made on, plus `addContract`. */
  const contracts = new Map<string, number>();

  function call(method: string, params: unknown[]): unknown {
    switch (method) {
      case 'eth_chainId':
        return opts.chainId ?? '0x2b6653dc';
      case 'eth_blockNumber':
        return hexQ(blocks.length - 1);
      case 'eth_getCode': {
        if (params[1] !== 'latest') throw invalid('TAG [earliest | pending | finalized] not supported');
        return contracts.has(addressOf(params[0])) ? '0x6080604052' : '0x';
      }
      case 'eth_call': {
        const c = params[0] as { to?: string; data?: string };
        const decimals = contracts.get(addressOf(c.to));
        if (decimals === undefined) return '0x';
        if (c.data !== '0x313ce567') throw invalid('unsupported call');
        return word(decimals.toString(16));
      }
      case 'eth_getTransactionByHash': {
        const hash = hashOf(params[0]);
        for (const block of blocks) {
          const tx = block.txs.find((t) => t.hash === hash);
          if (tx)
            return {
              hash,
              blockNumber: hexQ(block.number),
              blockHash: block.hash,
              to: tx.logs[0]?.address ?? null,
              value: '0x0',
            };
        }
        return null;
      }
      case 'eth_getBlockByNumber': {
        const block = blocks[blockNumberOf(params[0])];
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
        const hash = hashOf(params[0]);
        for (const block of blocks) {
          const i = block.txs.findIndex((t) => t.hash === hash);
          if (i >= 0) return receiptOf(block, i);
        }
        return null;
      }
      case 'eth_getLogs': {
        const f = params[0] as { fromBlock: string; toBlock: string; address?: string; topics?: unknown[] };
        if (f.address !== undefined) addressOf(f.address);
        const wanted = (f.topics?.[2] as string[] | null) ?? null;
        for (const t of wanted ?? [])
          if (!/^(0x)?[0-9a-fA-F]{64}$/.test(t)) throw invalid(`invalid topic: ${t}`);
        const out: unknown[] = [];
        for (const block of blocks.slice(blockNumberOf(f.fromBlock), blockNumberOf(f.toBlock) + 1))
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
    /** A TRC20 contract the node knows (eth_getCode, decimals() by eth_call). */
    addContract(contractHex: string, decimals = 6) {
      contracts.set(contractHex.toLowerCase(), decimals);
    },
    transfer(
      contractHex: string,
      pays: Array<{ to: string; amount: bigint }>,
      status: '0x1' | '0x0' = '0x1',
    ) {
      if (!contracts.has(contractHex.toLowerCase())) contracts.set(contractHex.toLowerCase(), 6);
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

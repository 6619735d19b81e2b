import {
  createPublicClient,
  HttpRequestError,
  http,
  numberToHex,
  pad,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import {
  type BlockRef,
  type ChainSource,
  ChainSourceError,
  type SeenTransfer,
  type SourceSettings,
  type WatchList,
} from './chain-source.js';

/** keccak256("Transfer(address,address,uint256)"): the ERC20 (and TRC20) Transfer event's topic 0. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Addresses per eth_getLogs topic list: java-tron's default maxSubTopics is 1000, providers vary. */
const TOPIC_BATCH = 500;

/** How this source writes addresses on the wire (TRON's JSON-RPC takes 20-byte hex like Ethereum). */
export interface AddressCodec {
  /** The watch list's address as 0x + 40 lower-case hex. */
  toHex(address: string): string;
}

const identityCodec: AddressCodec = { toHex: (a) => a.toLowerCase() };

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}
interface RpcReceipt {
  status?: string;
  blockNumber: string;
  blockHash: string;
  logs: RpcLog[];
}
interface RpcBlock {
  number: string;
  hash: string;
  transactions: Array<{ hash: string; to: string | null; value: string } | string>;
}

const num = (hex: string) => Number.parseInt(hex, 16);

/**
 * A chain source over Ethereum JSON-RPC (issue 20): Ethereum and BNB Smart Chain nodes or providers,
 * and java-tron's JSON-RPC with a TRON address codec. Token transfers come from `eth_getLogs` for the
 * token's Transfer events whose `to` topic is a watched address; each log's position inside its
 * transaction from the receipt (never the block-wide log index). Coin transfers come from blocks
 * with their transactions (`to` watched, value > 0, receipt status 1; position -1). The head is
 * asked with `eth_blockNumber` every time (no client cache). Errors: ChainSourceError.
 */
export function createEvmSource(
  settings: SourceSettings,
  opts: { codec?: AddressCodec; maxRange?: number; keyHeader?: string } = {},
): ChainSource & { chainId(): Promise<number> } {
  const codec = opts.codec ?? identityCodec;
  // Providers take the key as a bearer token; TronGrid wants its own header (TRON-PRO-API-KEY).
  const headers: Record<string, string> = !settings.apiKey
    ? {}
    : opts.keyHeader
      ? { [opts.keyHeader]: settings.apiKey }
      : { authorization: `Bearer ${settings.apiKey}` };
  const client = createPublicClient({
    transport: http(settings.url, { retryCount: 0, timeout: 10_000, fetchOptions: { headers } }),
  });
  const token = settings.tokenContract ? codec.toHex(settings.tokenContract) : null;

  async function rpc<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return (await client.request({ method, params } as never)) as T;
    } catch (err) {
      throw asSourceError(method, err);
    }
  }

  async function blockByNumber(height: number, full: boolean): Promise<RpcBlock | null> {
    return rpc<RpcBlock | null>('eth_getBlockByNumber', [numberToHex(height), full]);
  }

  async function receipt(txHash: string): Promise<RpcReceipt | null> {
    return rpc<RpcReceipt | null>('eth_getTransactionReceipt', [txHash]);
  }

  async function tokenTransfers(
    from: number,
    to: number,
    watched: readonly string[],
  ): Promise<SeenTransfer[]> {
    if (!token || watched.length === 0) return [];
    const byHex = new Map(watched.map((a) => [codec.toHex(a), a]));
    const out: SeenTransfer[] = [];
    const receipts = new Map<string, RpcReceipt | null>();
    const hexes = [...byHex.keys()];
    for (let i = 0; i < hexes.length; i += TOPIC_BATCH) {
      const topicTo = hexes.slice(i, i + TOPIC_BATCH).map((h) => pad(h as `0x${string}`, { size: 32 }));
      const logs = await rpc<RpcLog[]>('eth_getLogs', [
        {
          fromBlock: numberToHex(from),
          toBlock: numberToHex(to),
          address: token,
          topics: [TRANSFER_TOPIC, null, topicTo],
        },
      ]);
      for (const log of logs) {
        if (log.removed || log.topics.length < 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
        const toHex = `0x${(log.topics[2] ?? '').slice(-40)}`.toLowerCase();
        const address = byHex.get(toHex);
        if (!address) continue;
        let r = receipts.get(log.transactionHash);
        if (r === undefined) {
          r = await receipt(log.transactionHash);
          receipts.set(log.transactionHash, r);
        }
        // The log's position among its own transaction's logs: stable when a reorg moves the
        // transaction to another block, unlike the block-wide logIndex.
        const position = r?.logs.findIndex((l) => l.logIndex === log.logIndex) ?? -1;
        if (!r || position < 0 || (r.status !== undefined && r.status !== '0x1')) continue;
        out.push({
          asset: 'token',
          address,
          txHash: log.transactionHash,
          position,
          amount: BigInt(log.data === '0x' ? 0 : log.data),
          block: { height: num(log.blockNumber), hash: log.blockHash },
        });
      }
    }
    return out.filter((t) => t.amount > 0n);
  }

  async function coinTransfers(
    from: number,
    to: number,
    watched: readonly string[],
  ): Promise<SeenTransfer[]> {
    if (!settings.info.coin || watched.length === 0) return [];
    const byHex = new Map(watched.map((a) => [codec.toHex(a), a]));
    const out: SeenTransfer[] = [];
    for (let h = from; h <= to; h++) {
      const block = await blockByNumber(h, true);
      if (!block) break;
      for (const tx of block.transactions) {
        if (typeof tx === 'string' || !tx.to) continue;
        const address = byHex.get(tx.to.toLowerCase());
        const value = BigInt(tx.value);
        if (!address || value === 0n) continue;
        const r = await receipt(tx.hash);
        if (!r || (r.status !== undefined && r.status !== '0x1')) continue;
        out.push({
          asset: 'coin',
          address,
          txHash: tx.hash,
          position: -1,
          amount: value,
          block: { height: num(block.number), hash: block.hash },
        });
      }
    }
    return out;
  }

  return {
    maxRange: opts.maxRange ?? 100,
    async chainId() {
      return num(await rpc<string>('eth_chainId', []));
    },
    async head(): Promise<BlockRef> {
      const height = num(await rpc<string>('eth_blockNumber', []));
      const block = await blockByNumber(height, false);
      if (!block) throw new ChainSourceError(`the node has no block ${height}, its own head`);
      return { height, hash: block.hash };
    },
    async blockHash(height: number) {
      return (await blockByNumber(height, false))?.hash ?? null;
    },
    async scan(from: number, to: number, watch: WatchList) {
      // Every watched address for both assets: a token sent to a coin order's address (or the
      // reverse) is recorded too, and listed as unmatched rather than never seen.
      const all = [...new Set([...watch.token, ...watch.coin])];
      return [...(await tokenTransfers(from, to, all)), ...(await coinTransfers(from, to, all))];
    },
    async locate(t: SeenTransfer) {
      const r = await receipt(t.txHash);
      if (!r || (r.status !== undefined && r.status !== '0x1')) return null;
      return { height: num(r.blockNumber), hash: r.blockHash };
    },
  };
}

/** A provider failure in words an operator can act on. */
function asSourceError(method: string, err: unknown): ChainSourceError {
  if (err instanceof HttpRequestError) {
    const status = err.status;
    if (status === 429)
      return new ChainSourceError(
        `${method}: rate limited by the provider (429): raise poll_seconds or use your own node`,
        429,
      );
    return new ChainSourceError(
      `${method}: the provider answered HTTP ${status ?? 'error'}: ${err.shortMessage}`,
      status,
    );
  }
  if (err instanceof TimeoutError) return new ChainSourceError(`${method}: no answer within 10 s`);
  if (err instanceof RpcRequestError || (err as { code?: unknown })?.code !== undefined) {
    const message = (err as { details?: string; shortMessage?: string }).details ?? (err as Error).message;
    if (method === 'eth_getLogs')
      return new ChainSourceError(
        `eth_getLogs refused: ${message}. Public BSC endpoints refuse eth_getLogs; use a provider or your own node that serves logs`,
      );
    return new ChainSourceError(`${method}: ${message}`);
  }
  return new ChainSourceError(`${method}: ${(err as Error)?.message ?? String(err)}`);
}

import { Address } from '@ton/core';
import { normaliseTxHash } from '../crypto/index.js';
import {
  type BlockRef,
  type ChainSource,
  ChainSourceError,
  type SeenTransfer,
  type SourceSettings,
  type WatchList,
} from './chain-source.js';
import { createRestClient, inPool, type RestClient } from './rest-client.js';

// toncenter's API v3 as served by toncenter.com/api/v3 and by an operator's own ton-indexer, read in
// its server: toncenter/ton-index-go (commit 0fa4fff, 2025-03-05), main.go (routes and query
// parameters) and index/models.go, index/response.go (answer shapes). Addresses come back raw
// ("0:83DF...", upper-case hex), hashes base64, lt and amounts as strings, errors as
// {"error": "...", "code": n}; `limit` is at most 1000 and `offset` pages.

/** Rows per page: toncenter's limit goes to 1000; a small page keeps each answer quick. */
export const TON_PAGE = 50;
/** Pages per address per scan before the scan gives up (one address, one order: a handful at most). */
export const TON_MAX_PAGES = 20;
/** Addresses read at the same time: toncenter without a key allows 1 request a second. */
const CONCURRENCY = 2;
/** The masterchain's only shard, as toncenter writes it. */
const MASTER_SHARD = '8000000000000000';

interface TonMessage {
  source: string | null;
  destination: string | null;
  value: string | null;
  /** "0x%08x" of the body's first 32 bits; null for an empty body. */
  opcode?: string | null;
  bounced?: boolean | null;
}
interface TonTransaction {
  account: string;
  hash: string;
  mc_block_seqno: number;
  description?: { aborted?: boolean; bounce?: unknown; credit_ph?: { credit?: string } };
  in_msg: TonMessage | null;
}
interface TonJettonTransfer {
  destination: string;
  amount: string;
  jetton_master: string;
  transaction_hash: string;
  transaction_aborted: boolean;
}

/**
 * A chain source over toncenter's API v3 (issue 20) for TON and USDT on TON. `settings.url` is the
 * API base (`https://toncenter.com/api/v3`, `https://testnet.toncenter.com/api/v3`, or an
 * operator's ton-indexer); `settings.apiKey` goes as `X-API-Key`. Heights are masterchain seqnos
 * (TON is final once a masterchain block holds the transaction); hashes are written as lower-case
 * hex (the API's base64 decoded), as the crypto module keys transfers.
 *
 * - `head()`: `/masterchainInfo`, its `last` block.
 * - `blockHash(h)`: `/blocks?workchain=-1&shard=8000000000000000&seqno=h`, null when none.
 * - `scan(from, to, watch)`: every watched address is read for both assets (a wrong asset is then
 *   listed as unmatched). `/transactions?account=&sort=desc` paged until a transaction below `from`:
 *   a plain incoming transfer that was not bounced back pays its message value (else
 *   `description.credit_ph.credit`) in nanoton at position 0. And `/jetton/transfers?owner_address=&direction=in&jetton_master=&sort=desc`: transfers not
 *   aborted, of the configured jetton master, in 10^-6 USDT at position 0, their masterchain block
 *   read from `/transactions?hash=`. Newer transfers than `to` are returned too.
 * - `locate(t)`: `/transactions?hash=`: its masterchain block, null when the index has none.
 *
 * Addresses in the watch list that are not TON addresses are skipped (they can receive nothing).
 * Throws ChainSourceError on a non-2xx answer (429: rate limited), an unreachable provider, a
 * malformed body, or an address with more than TON_MAX_PAGES pages at or above `from`.
 */
export function createTonSource(settings: SourceSettings, opts: { fetch?: typeof fetch } = {}): ChainSource {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
  const client = createRestClient({
    url: settings.url,
    headers,
    expect: "toncenter's API v3 base, e.g. https://toncenter.com/api/v3",
    on400: 'an address or hash the indexer could not read',
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const master = settings.tokenContract ? parseTon(settings.tokenContract) : null;
  const blockHashes = new Map<number, string>();

  async function blockHash(seqno: number): Promise<string | null> {
    const known = blockHashes.get(seqno);
    if (known) return known;
    const path = `/blocks?workchain=-1&shard=${MASTER_SHARD}&seqno=${seqno}&limit=1`;
    const body = (await client.getJson(path)) as { blocks?: unknown };
    if (!Array.isArray(body?.blocks)) throw client.malformed(path, 'no `blocks` list', JSON.stringify(body));
    const block = body.blocks[0] as { seqno?: unknown; root_hash?: unknown } | undefined;
    if (!block) return null;
    const hash = hexOfHash(block.root_hash);
    if (block.seqno !== seqno || !hash)
      throw client.malformed(path, 'a block without seqno or root_hash', JSON.stringify(block));
    // Masterchain blocks never change once the index holds them: kept for this source's life.
    if (blockHashes.size > 10_000) blockHashes.clear();
    blockHashes.set(seqno, hash);
    return hash;
  }

  async function blockOf(seqno: number): Promise<BlockRef> {
    const hash = await blockHash(seqno);
    if (!hash)
      throw new ChainSourceError(
        `the indexer has a transaction in masterchain block ${seqno} but not the block`,
      );
    return { height: seqno, hash };
  }

  async function transactionsPage(path: string): Promise<TonTransaction[]> {
    return txList(client, path, await client.getJson(path));
  }

  async function locate(t: SeenTransfer): Promise<BlockRef | null> {
    const path = `/transactions?hash=${encodeURIComponent(t.txHash)}&limit=1`;
    const tx = (await transactionsPage(path))[0];
    return tx ? blockOf(tx.mc_block_seqno) : null;
  }

  /** One coin address's incoming TON at or above `from`. */
  async function coinTransfers(address: string, from: number): Promise<SeenTransfer[]> {
    const ours = parseTon(address);
    if (!ours) return [];
    const out: SeenTransfer[] = [];
    await pages(address, from, async (offset) => {
      const path = `/transactions?account=${encodeURIComponent(ours.toRawString())}&limit=${TON_PAGE}&offset=${offset}&sort=desc`;
      const txs = await transactionsPage(path);
      const heights: number[] = [];
      for (const tx of txs) {
        heights.push(tx.mc_block_seqno);
        if (tx.mc_block_seqno < from) continue;
        const amount = incomingCoin(tx, ours);
        if (amount > 0n)
          out.push({
            asset: 'coin',
            address,
            txHash: hexOfHash(tx.hash) as string,
            position: 0,
            amount,
            block: await blockOf(tx.mc_block_seqno),
          });
      }
      return heights;
    });
    return out;
  }

  /** One token address's incoming USDT jetton transfers at or above `from`. */
  async function tokenTransfers(address: string, from: number): Promise<SeenTransfer[]> {
    const ours = parseTon(address);
    if (!ours || !master) return [];
    const out: SeenTransfer[] = [];
    await pages(address, from, async (offset) => {
      const path =
        `/jetton/transfers?owner_address=${encodeURIComponent(ours.toRawString())}&direction=in` +
        `&jetton_master=${encodeURIComponent(master.toRawString())}&limit=${TON_PAGE}&offset=${offset}&sort=desc`;
      const transfers = jettonList(client, path, await client.getJson(path));
      const heights: number[] = [];
      for (const j of transfers) {
        const hash = hexOfHash(j.transaction_hash);
        if (!hash)
          throw client.malformed(path, 'a transfer without a 32-byte transaction_hash', JSON.stringify(j));
        const block = await locate({
          asset: 'token',
          address,
          txHash: hash,
          position: 0,
          amount: 0n,
          block: null,
        });
        heights.push(block?.height ?? Number.MAX_SAFE_INTEGER);
        if (block && block.height < from) continue;
        if (
          j.transaction_aborted ||
          !sameAddress(j.jetton_master, master) ||
          !sameAddress(j.destination, ours)
        )
          continue;
        const amount = BigInt(j.amount);
        if (amount > 0n) out.push({ asset: 'token', address, txHash: hash, position: 0, amount, block });
      }
      return heights;
    });
    return out;
  }

  /**
   * Pages newest first (`read(offset)` answers the masterchain heights of its rows) until a row below
   * `from` or a short page; past TON_MAX_PAGES an error (the scan is retried, nothing is skipped).
   */
  async function pages(
    address: string,
    from: number,
    read: (offset: number) => Promise<number[]>,
  ): Promise<void> {
    for (let page = 0; ; page++) {
      if (page >= TON_MAX_PAGES)
        throw new ChainSourceError(
          `address ${address} has more than ${TON_MAX_PAGES * TON_PAGE} transfers at or above block ${from}: ` +
            'the scan stops there; use a fresh address per order',
        );
      const heights = await read(page * TON_PAGE);
      if (heights.some((h) => h < from) || heights.length < TON_PAGE) return;
    }
  }

  return {
    maxRange: 10_000,
    async head(): Promise<BlockRef> {
      const path = '/masterchainInfo';
      const body = (await client.getJson(path)) as { last?: { seqno?: unknown; root_hash?: unknown } };
      const seqno = body?.last?.seqno;
      const hash = hexOfHash(body?.last?.root_hash);
      if (typeof seqno !== 'number' || !Number.isSafeInteger(seqno) || !hash)
        throw client.malformed(path, 'no `last` block with seqno and root_hash', JSON.stringify(body));
      blockHashes.set(seqno, hash);
      return { height: seqno, hash };
    },
    blockHash,
    async scan(from: number, _to: number, watch: WatchList): Promise<SeenTransfer[]> {
      // Every watched address for both assets: a jetton sent to a TON order's address (or TON to a
      // USDT order's) is recorded too, and listed as unmatched rather than never seen.
      const all = [...new Set([...watch.token, ...watch.coin])];
      const coin = await inPool(all, CONCURRENCY, (a) => coinTransfers(a, from));
      const token = await inPool(all, CONCURRENCY, (a) => tokenTransfers(a, from));
      return [...coin.flat(), ...token.flat()];
    },
    locate,
  };
}

/** Opcodes of a plain TON transfer: no body, or a text comment (32 zero bits then the text). */
const PLAIN_TRANSFER = new Set([null, undefined, '0x00000000']);

/**
 * The nanotons a plain incoming transfer paid: the message value (what the payer sent; a storage
 * debt the account owed, taken in the credit phase, is the receiver's cost, not a short payment),
 * else the credit phase's credit. 0 for an external message, a message to
 * another account, a bounced message coming back, one the account bounced (the value went back), and
 * a message with another opcode: a jetton wallet's transfer_notification (0x7362d09c) or excesses
 * (0xd53276db) carry a little TON with every USDT payment, and are not a TON payment.
 */
function incomingCoin(tx: TonTransaction, ours: Address): bigint {
  const msg = tx.in_msg;
  if (!msg?.source || !msg.destination || msg.bounced) return 0n;
  if (!PLAIN_TRANSFER.has(msg.opcode)) return 0n;
  if (!sameAddress(msg.destination, ours)) return 0n;
  if (tx.description?.bounce) return 0n;
  const credit = msg.value ?? tx.description?.credit_ph?.credit;
  return credit && /^\d+$/.test(credit) ? BigInt(credit) : 0n;
}

function parseTon(address: string): Address | null {
  try {
    return Address.parse(address.trim());
  } catch {
    return null;
  }
}

function sameAddress(text: string, address: Address): boolean {
  const other = parseTon(text);
  return other !== null && other.equals(address);
}

/** A 32-byte hash given as base64 (toncenter) or hex, as the crypto module keys it (lower-case hex). */
function hexOfHash(value: unknown): string | null {
  return typeof value === 'string' ? (normaliseTxHash('TON', value) ?? null) : null;
}

function txList(client: RestClient, path: string, body: unknown): TonTransaction[] {
  const list = (body as { transactions?: unknown })?.transactions;
  if (!Array.isArray(list)) throw client.malformed(path, 'no `transactions` list', JSON.stringify(body));
  for (const tx of list as Array<Partial<TonTransaction> | null>) {
    const ok =
      typeof tx === 'object' &&
      tx !== null &&
      typeof tx.hash === 'string' &&
      hexOfHash(tx.hash) !== null &&
      Number.isSafeInteger(tx.mc_block_seqno) &&
      (tx.in_msg === null || (typeof tx.in_msg === 'object' && tx.in_msg !== undefined));
    if (!ok)
      throw client.malformed(
        path,
        'a transaction without hash, mc_block_seqno or in_msg',
        JSON.stringify(tx),
      );
  }
  return list as TonTransaction[];
}

function jettonList(client: RestClient, path: string, body: unknown): TonJettonTransfer[] {
  const list = (body as { jetton_transfers?: unknown })?.jetton_transfers;
  if (!Array.isArray(list)) throw client.malformed(path, 'no `jetton_transfers` list', JSON.stringify(body));
  for (const j of list as Array<Partial<TonJettonTransfer> | null>) {
    const ok =
      typeof j === 'object' &&
      j !== null &&
      typeof j.destination === 'string' &&
      typeof j.jetton_master === 'string' &&
      typeof j.amount === 'string' &&
      /^\d+$/.test(j.amount) &&
      typeof j.transaction_hash === 'string' &&
      typeof j.transaction_aborted === 'boolean';
    if (!ok)
      throw client.malformed(
        path,
        'a jetton transfer without destination, integer amount or transaction',
        JSON.stringify(j),
      );
  }
  return list as TonJettonTransfer[];
}

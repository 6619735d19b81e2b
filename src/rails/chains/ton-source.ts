import type { Address } from '@ton/core';
import { networkName } from './chain-catalog.js';
import {
  type BlockRef,
  ChainMismatchError,
  type ChainSource,
  ChainSourceError,
  type Location,
  type NetworkFacts,
  type SeenTransfer,
  type SourceSettings,
  TransferMismatchError,
  type WatchList,
} from './chain-source.js';
import { createRestClient, type RestClient } from './rest-client.js';
import {
  chainTimeOf,
  hexOfHash,
  incomingCoin,
  jettonList,
  parseTon,
  sameAddress,
  txList,
} from './ton-answers.js';

// toncenter's API v3 as served by toncenter.com/api/v3 and by an operator's own ton-indexer, read in
// its server: toncenter/ton-index-go (commit 0fa4fff, 2025-03-05), main.go (routes and query
// parameters), docs/swagger.json (the published API reference: `account` and `owner_address` take
// many addresses, up to 1000 for jetton owners; `limit` at most 1000) and index/models.go,
// index/response.go (answer shapes). Addresses come back raw ("0:83DF...", upper-case hex), hashes
// base64, lt and amounts as strings, errors as {"error": "...", "code": n}. Rate limits: docs.ton.org
// "Rate limits" (1 request a second without a key, 10 on the free plan; 429 over it).

/** Rows per page: toncenter's limit goes to 1000; a small page keeps each answer quick. */
export const TON_PAGE = 50;
/** Pages per scan before the scan gives up (a few orders' payments between two loops: a handful). */
export const TON_MAX_PAGES = 20;
/**
 * Watched addresses asked in one call: the API takes many (`account` and `owner_address` are lists,
 * jetton owners up to 1000); 50 raw addresses keep the URL under 4 KB, within every proxy's limit.
 * So a loop asks ceil(addresses / 50) times per asset, not once per order.
 */
export const TON_ADDRESSES_PER_CALL = 50;
/** The masterchain's only shard, as toncenter writes it. */
const MASTER_SHARD = '8000000000000000';
/** Hashes located are kept for the source's life (masterchain blocks are final); at most this many. */
const CACHE_MAX = 10_000;

/**
 * A chain source over toncenter's API v3 (docs/decisions.md sections 25 and 34) for TON and USDT on
 * TON. `settings.url` is the API base (`https://toncenter.com/api/v3`, an operator's ton-indexer);
 * `settings.apiKey` goes as `X-API-Key`. Heights are masterchain seqnos (final once a masterchain
 * block holds the transaction); hashes are written as lower-case hex (the API's base64 decoded).
 *
 * - `head()`: `/masterchainInfo`, its `last` block. `blockHash(h)`: `/blocks?workchain=-1&...`.
 * - `scan(from, to, watch)`: every watched address for both assets, TON_ADDRESSES_PER_CALL at a
 *   time: `/transactions?account=A&account=B...&sort=desc` paged until a transaction below `from`
 *   (a plain incoming transfer not bounced pays its message value in nanoton, position 0), and
 *   `/jetton/transfers?owner_address=A&owner_address=B...&direction=in&jetton_master=` (transfers not
 *   aborted, of the configured master, in 10^-6 USDT at position 0; each one's masterchain block read
 *   once from `/transactions?hash=` and kept). Newer transfers than `to` are returned too.
 * - `locate(t)`: `/transactions?hash=`: its masterchain block, null when the index has none; a TON
 *   payment must still pay its address the amount seen.
 * - `verifyNetwork()`: `global_id` of the last block (-239 mainnet, or `chain_id`), and the jetton
 *   master at `/jetton/masters` with 6 decimals when its content states them.
 *
 * Addresses in the watch list that are not TON addresses are skipped (they can receive nothing).
 * Throws ChainSourceError on a non-2xx answer (429 after its retries), an unreachable provider, a
 * malformed body, or more than TON_MAX_PAGES pages at or above `from`.
 */
export function createTonSource(
  settings: SourceSettings,
  opts: { fetch?: typeof fetch; backoffMs?: number } = {},
): ChainSource {
  const ctx = tonContext(settings, opts);
  return {
    maxRange: 10_000,
    head: () => head(ctx),
    blockHash: (seqno: number) => blockHash(ctx, seqno),
    scan: (from: number, _to: number, watch: WatchList) => scan(ctx, from, watch),
    locate: (t: SeenTransfer) => locate(ctx, t),
    verifyNetwork: () => verifyTonNetwork(settings, ctx.client, ctx.master),
  };
}

/** One TON source's client, jetton master and the hashes it keeps (masterchain blocks are final). */
interface TonContext {
  client: RestClient;
  master: Address | null;
  /** Masterchain seqno to block hash (hex). */
  blockHashes: Map<number, string>;
  /** Transaction hash (hex) to its masterchain seqno. */
  located: Map<string, number>;
}

function tonContext(
  settings: SourceSettings,
  opts: { fetch?: typeof fetch; backoffMs?: number },
): TonContext {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
  const client = createRestClient({
    url: settings.url,
    headers,
    expect: "toncenter's API v3 base, e.g. https://toncenter.com/api/v3",
    on400: 'an address or hash the indexer could not read',
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
  });
  const master = settings.tokenContract ? parseTon(settings.tokenContract) : null;
  return { client, master, blockHashes: new Map(), located: new Map() };
}

/** Keeps `key` in `map`, emptied first when it holds CACHE_MAX entries. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= CACHE_MAX) map.clear();
  map.set(key, value);
}

/** `/masterchainInfo`, its `last` block. */
async function head(ctx: TonContext): Promise<BlockRef> {
  const path = '/masterchainInfo';
  const body = (await ctx.client.getJson(path)) as { last?: { seqno?: unknown; root_hash?: unknown } };
  const seqno = body?.last?.seqno;
  const hash = hexOfHash(body?.last?.root_hash);
  if (typeof seqno !== 'number' || !Number.isSafeInteger(seqno) || !hash)
    throw ctx.client.malformed(path, 'no `last` block with seqno and root_hash', JSON.stringify(body));
  remember(ctx.blockHashes, seqno, hash);
  return { height: seqno, hash };
}

/** The hash of masterchain block `seqno`, null when the indexer has none. */
async function blockHash(ctx: TonContext, seqno: number): Promise<string | null> {
  const { client } = ctx;
  const known = ctx.blockHashes.get(seqno);
  if (known) return known;
  const path = `/blocks?workchain=-1&shard=${MASTER_SHARD}&seqno=${seqno}&limit=1`;
  const body = (await client.getJson(path)) as { blocks?: unknown };
  if (!Array.isArray(body?.blocks)) throw client.malformed(path, 'no `blocks` list', JSON.stringify(body));
  const block = body.blocks[0] as { seqno?: unknown; root_hash?: unknown } | undefined;
  if (!block) return null;
  const hash = hexOfHash(block.root_hash);
  if (block.seqno !== seqno || !hash)
    throw client.malformed(path, 'a block without seqno or root_hash', JSON.stringify(block));
  remember(ctx.blockHashes, seqno, hash);
  return hash;
}

async function blockOf(ctx: TonContext, seqno: number): Promise<BlockRef> {
  const hash = await blockHash(ctx, seqno);
  if (!hash)
    throw new ChainSourceError(
      `the indexer has a transaction in masterchain block ${seqno} but not the block`,
    );
  return { height: seqno, hash };
}

/** The transaction of `hash` (hex), or undefined when the index has none. */
async function transactionOf(ctx: TonContext, hash: string) {
  const path = `/transactions?hash=${encodeURIComponent(hash)}&limit=1`;
  return txList(ctx.client, path, await ctx.client.getJson(path))[0];
}

/** The masterchain seqno of a transaction (`hash` hex), kept once known; null when unknown. */
async function seqnoOf(ctx: TonContext, hash: string): Promise<number | null> {
  const known = ctx.located.get(hash);
  if (known !== undefined) return known;
  const tx = await transactionOf(ctx, hash);
  if (!tx) return null;
  remember(ctx.located, hash, tx.mc_block_seqno);
  return tx.mc_block_seqno;
}

/** Where a transfer is now; a TON payment must still pay its address the amount seen. */
async function locate(ctx: TonContext, t: SeenTransfer): Promise<Location> {
  const tx = await transactionOf(ctx, t.txHash);
  if (!tx) return null;
  if (t.asset === 'coin') {
    const ours = parseTon(t.address);
    const paid = ours ? incomingCoin(tx, ours) : 0n;
    if (paid === 0n || (t.amount > 0n && paid !== t.amount))
      throw new TransferMismatchError(
        `${t.txHash} no longer pays ${t.address} what was seen (the indexer answers another transfer): not credited`,
      );
  }
  return blockOf(ctx, tx.mc_block_seqno);
}

/**
 * Every watched address for both assets, TON_ADDRESSES_PER_CALL at a time: a jetton sent to a TON
 * order's address (or TON to a USDT order's) is recorded too, and listed as unmatched rather than
 * never seen.
 */
async function scan(ctx: TonContext, from: number, watch: WatchList): Promise<SeenTransfer[]> {
  const all = [...new Set([...watch.token, ...watch.coin])]
    .map((a) => [a, parseTon(a)] as const)
    .filter((p): p is [string, Address] => p[1] !== null);
  const out: SeenTransfer[] = [];
  for (let i = 0; i < all.length; i += TON_ADDRESSES_PER_CALL) {
    const group = all.slice(i, i + TON_ADDRESSES_PER_CALL);
    out.push(...(await coinTransfers(ctx, group, from)), ...(await tokenTransfers(ctx, group, from)));
  }
  return out;
}

/** Incoming TON of a group of addresses at or above `from`. */
async function coinTransfers(
  ctx: TonContext,
  group: Array<[string, Address]>,
  from: number,
): Promise<SeenTransfer[]> {
  const accounts = group.map(([, a]) => `account=${encodeURIComponent(a.toRawString())}`).join('&');
  const out: SeenTransfer[] = [];
  await pages(from, async (offset) => {
    const path = `/transactions?${accounts}&limit=${TON_PAGE}&offset=${offset}&sort=desc`;
    const txs = txList(ctx.client, path, await ctx.client.getJson(path));
    for (const tx of txs) {
      if (tx.mc_block_seqno < from) continue;
      for (const [address, ours] of group) {
        const amount = incomingCoin(tx, ours);
        if (amount > 0n)
          out.push({
            asset: 'coin',
            address,
            txHash: hexOfHash(tx.hash) as string,
            position: 0,
            amount,
            block: await blockOf(ctx, tx.mc_block_seqno),
            paidAt: chainTimeOf(tx.now),
          });
      }
    }
    return txs.map((tx) => tx.mc_block_seqno);
  });
  return out;
}

/** Incoming USDT jetton transfers of a group of owners at or above `from`. */
async function tokenTransfers(
  ctx: TonContext,
  group: Array<[string, Address]>,
  from: number,
): Promise<SeenTransfer[]> {
  const { client, master } = ctx;
  if (!master) return [];
  const owners = group.map(([, a]) => `owner_address=${encodeURIComponent(a.toRawString())}`).join('&');
  const out: SeenTransfer[] = [];
  await pages(from, async (offset) => {
    const path =
      `/jetton/transfers?${owners}&direction=in&jetton_master=${encodeURIComponent(master.toRawString())}` +
      `&limit=${TON_PAGE}&offset=${offset}&sort=desc`;
    const heights: number[] = [];
    for (const j of jettonList(client, path, await client.getJson(path))) {
      const hash = hexOfHash(j.transaction_hash);
      if (!hash)
        throw client.malformed(path, 'a transfer without a 32-byte transaction_hash', JSON.stringify(j));
      const seqno = await seqnoOf(ctx, hash);
      heights.push(seqno ?? Number.MAX_SAFE_INTEGER);
      if (seqno !== null && seqno < from) continue;
      const owner = group.find(([, a]) => sameAddress(j.destination, a));
      if (j.transaction_aborted || !sameAddress(j.jetton_master, master) || !owner) continue;
      const amount = BigInt(j.amount);
      const block = seqno === null ? null : await blockOf(ctx, seqno);
      if (amount > 0n)
        out.push({
          asset: 'token',
          address: owner[0],
          txHash: hash,
          position: 0,
          amount,
          block,
          paidAt: chainTimeOf(j.transaction_now),
        });
    }
    return heights;
  });
  return out;
}

/**
 * Pages newest first (`read(offset)` answers the masterchain heights of its rows) until a row below
 * `from` or a short page; past TON_MAX_PAGES an error (the scan is retried, nothing is skipped).
 */
async function pages(from: number, read: (offset: number) => Promise<number[]>): Promise<void> {
  for (let page = 0; ; page++) {
    if (page >= TON_MAX_PAGES)
      throw new ChainSourceError(
        `the watched addresses have more than ${TON_MAX_PAGES * TON_PAGE} transfers at or above block ${from}: ` +
          'the scan stops there; use a fresh address per order',
      );
    const heights = await read(page * TON_PAGE);
    if (heights.some((h) => h < from) || heights.length < TON_PAGE) return;
  }
}

/** The checks of `verifyNetwork` (see createTonSource). */
async function verifyTonNetwork(
  settings: SourceSettings,
  client: RestClient,
  master: Address | null,
): Promise<NetworkFacts> {
  const info = (await client.getJson('/masterchainInfo')) as { last?: { global_id?: unknown } };
  const globalId = info?.last?.global_id;
  if (typeof globalId !== 'number')
    throw client.malformed('/masterchainInfo', 'a last block without global_id', JSON.stringify(info));
  const expected = settings.chainId;
  if (expected !== null && globalId !== expected)
    throw new ChainMismatchError(
      `the URL serves ${networkName(globalId)}, not ${networkName(expected)}; give chain_id (the global_id, -3 for the testnet) for a test network`,
      'chain_id',
    );
  if (!master || !settings.info.token) return { network: networkName(globalId), tokenDecimals: null };
  const path = `/jetton/masters?address=${encodeURIComponent(master.toRawString())}&limit=1`;
  const body = (await client.getJson(path)) as { jetton_masters?: unknown };
  if (!Array.isArray(body?.jetton_masters))
    throw client.malformed(path, 'no `jetton_masters` list', JSON.stringify(body));
  const found = body.jetton_masters[0] as { jetton_content?: { decimals?: unknown } } | undefined;
  if (!found)
    throw new ChainMismatchError(
      `no jetton master at ${settings.tokenContract} on ${networkName(globalId)}: the token address is of another network`,
      'token_contract',
    );
  // TEP-64 metadata: decimals stated on chain; an off-chain (uri) content states none here.
  const stated = found.jetton_content?.decimals;
  if (stated === undefined || stated === null) return { network: networkName(globalId), tokenDecimals: null };
  const decimals = Number(stated);
  if (decimals !== settings.info.token.decimals)
    throw new ChainMismatchError(
      `the jetton at ${settings.tokenContract} has ${String(stated)} decimals, not ${settings.info.token.decimals} as USDT on TON: another token`,
      'token_contract',
    );
  return { network: networkName(globalId), tokenDecimals: decimals };
}

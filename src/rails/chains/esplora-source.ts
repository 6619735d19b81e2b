import { networkName } from './chain-catalog.js';
import {
  type BlockRef,
  ChainMismatchError,
  type ChainSource,
  ChainSourceError,
  type Location,
  type SeenTransfer,
  type SourceSettings,
  TransferMismatchError,
  type WatchList,
} from './chain-source.js';
import { createRestClient, inPool, type RestClient } from './rest-client.js';

// Esplora's REST API as documented in Blockstream/esplora API.md (commit a51df73e, 2026-08-21) and as
// served by Blockstream's electrs (src/rest.rs, new-index) and mempool's fork (mempool/electrs):
// blockstream.info/api, mempool.space/api, litecoinspace.org/api, or an operator's own electrs.

/** Addresses read at the same time: public providers rate-limit per client, so a small pool. */
export const ESPLORA_CONCURRENCY = 3;
/** Requests per address per scan (the first `/txs` plus `/txs/chain` pages of 25). */
export const ESPLORA_MAX_PAGES = 20;
/** Esplora's documented confirmed page size (electrs CHAIN_TXS_PER_PAGE; mempool's default too). */
const PAGE = 25;

interface EsploraStatus {
  confirmed: boolean;
  /** Present only when confirmed (electrs omits it otherwise; API.md says null). */
  block_height?: number | null;
  block_hash?: string | null;
}
interface EsploraTx {
  txid: string;
  vout: Array<{ scriptpubkey_address?: string; value: number }>;
  status: EsploraStatus;
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * A chain source over Esplora's REST API (docs/decisions.md sections 25 and 34) for Bitcoin and Litecoin. `settings.url` is the
 * API base (`https://blockstream.info/api`, `https://mempool.space/api`,
 * `https://litecoinspace.org/api`, `http://127.0.0.1:3002`); paths are appended to it. When
 * `settings.apiKey` is set it is sent as `Authorization: Bearer <key>` (Blockstream's Enterprise API
 * takes an OAuth2 bearer token; the public endpoints take none).
 *
 * - `scan(from, to, watch)`: only `watch.coin` (these chains have no token). For each address, its
 *   history newest first (`/address/:a/txs`, then `/address/:a/txs/chain/:last_seen_txid`) until a
 *   confirmed transaction below `from`; one SeenTransfer per output paying the address (`position`
 *   = output index, `amount` = satoshis/litoshis as bigint, `block` null for mempool). Mempool
 *   transactions and those above `to` are returned too; confirmed ones below `from` are not.
 * - `head()`: `/blocks/tip/height`, then `/block-height/:h` for a hash of that same height.
 * - `blockHash(h)`: `/block-height/:h`, null on 404 (above the tip).
 * - `locate(t)`: `/tx/:txid`: its block when confirmed, `'unconfirmed'` while in the mempool, null
 *   on 404 (replaced or dropped: electrs answers 404 "Transaction not found" for a txid it does not
 *   hold; `/tx/:txid/status` would answer `{"confirmed":false}` for both). The output at the
 *   transfer's position must still pay its address the amount seen, else a ChainSourceError.
 * - `verifyNetwork()`: `/block-height/0` must be the chain's genesis hash (or `genesis_hash`).
 * - `seesMempool`: scans run every poll, so a mempool payment is seen within one poll.
 *
 * Every request has a 10 s timeout. Throws ChainSourceError (with `status` for HTTP answers) on a
 * non-2xx answer (429: rate limited), an unreachable provider, a malformed body, or an address with
 * more history at or above `from` than ESPLORA_MAX_PAGES pages.
 */
export function createEsploraSource(
  settings: SourceSettings,
  opts: { fetch?: typeof fetch; backoffMs?: number } = {},
): ChainSource {
  const rc = esploraClient(settings, opts);
  return {
    maxRange: 10_000,
    seesMempool: true,
    verifyNetwork: () => verifyGenesis(rc, settings),
    head: () => tipBlock(rc),
    blockHash: (height: number) => blockHashAt(rc, height),
    async scan(from: number, _to: number, watch: WatchList): Promise<SeenTransfer[]> {
      const addresses = [...new Set(watch.coin)];
      const results = await inPool(addresses, ESPLORA_CONCURRENCY, (a) => addressTransfers(rc, a, from));
      return results.flat();
    },
    locate: (t: SeenTransfer) => locate(rc, t),
  };
}

/** The REST client of the Esplora base URL, the API key as a bearer token. */
function esploraClient(
  settings: SourceSettings,
  opts: { fetch?: typeof fetch; backoffMs?: number },
): RestClient {
  const headers: Record<string, string> = { accept: 'application/json, text/plain' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  return createRestClient({
    url: settings.url,
    headers,
    expect: 'the Esplora API base, e.g. https://blockstream.info/api',
    on400: 'an address of another network, or a URL that is not an Esplora API',
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
  });
}

/** `/block-height/0` must be the chain's genesis hash (or `genesis_hash`). */
async function verifyGenesis(rc: RestClient, settings: SourceSettings) {
  const expected = settings.genesisHash ?? settings.info.genesisHash ?? null;
  const genesis = await blockHashAt(rc, 0);
  if (!genesis) throw new ChainSourceError('the provider has no block 0: is the URL an Esplora API base?');
  if (expected !== null && genesis !== expected)
    throw new ChainMismatchError(
      `the URL serves ${networkName(genesis)}, not ${networkName(expected)} (${settings.info.chain}); give genesis_hash for a test network`,
      'genesis_hash',
    );
  return { network: networkName(genesis), tokenDecimals: null };
}

/** `/blocks/tip/height`, then `/block-height/:h` for a hash of that same height. */
async function tipBlock(rc: RestClient): Promise<BlockRef> {
  const path = '/blocks/tip/height';
  const text = ((await rc.get(path)) ?? '').trim();
  const height = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(height))
    throw rc.malformed(path, 'not a block height', text);
  // The hash of that same height, not /blocks/tip/hash: a block found between two requests
  // would pair a height with the next block's hash.
  const hash = await blockHashAt(rc, height);
  if (!hash)
    throw new ChainSourceError(`the tip moved below block ${height} while it was read: retried next loop`);
  return { height, hash };
}

/** `/block-height/:h`, null on 404 (above the tip). */
async function blockHashAt(rc: RestClient, height: number): Promise<string | null> {
  const path = `/block-height/${height}`;
  const text = await rc.get(path, true);
  if (text === null) return null;
  const hash = text.trim();
  if (!HASH.test(hash)) throw rc.malformed(path, 'not a block hash', text);
  return hash;
}

async function txStatus(rc: RestClient, txid: string): Promise<BlockRef | null> {
  const path = `/tx/${encodeURIComponent(txid)}/status`;
  const body = await rc.getJson(path, true);
  if (body === null) return null;
  return blockOf(path, body, rc.malformed);
}

/** A transaction as first seen in an address's history, with its block (null in the mempool). */
type Sighting = { tx: EsploraTx; block: BlockRef | null };

/** One address's transfers at or above `from` (and in the mempool). */
async function addressTransfers(rc: RestClient, address: string, from: number): Promise<SeenTransfer[]> {
  const seen = await addressHistory(rc, address, from);
  const out: SeenTransfer[] = [];
  for (const { tx, block } of seen.values()) {
    tx.vout.forEach((o, n) => {
      // An output with no value pays nothing to credit.
      if (o.scriptpubkey_address !== address || o.value === 0) return;
      out.push({ asset: 'coin', address, txHash: tx.txid, position: n, amount: BigInt(o.value), block });
    });
  }
  return out;
}

/** An address's transactions at or above `from` and in the mempool, newest first, by txid. */
async function addressHistory(rc: RestClient, address: string, from: number): Promise<Map<string, Sighting>> {
  const a = encodeURIComponent(address);
  const seen = new Map<string, Sighting>();
  let lastSeen: { txid: string; block: BlockRef } | null = null;
  let path = `/address/${a}/txs`;
  for (let page = 1; ; page++) {
    if (page > ESPLORA_MAX_PAGES)
      throw new ChainSourceError(
        `address ${address} has more than ${ESPLORA_MAX_PAGES * PAGE} transactions at or above block ${from}: ` +
          'the scan stops there; use a fresh address per order (or your own Esplora with a shorter late window)',
      );
    const txs = txList(path, await rc.getJson(path), rc.malformed);
    let reachedFrom = false;
    for (const tx of txs) {
      const block = blockOf(path, tx.status, rc.malformed);
      if (block) {
        lastSeen = { txid: tx.txid, block };
        if (block.height < from) {
          // Newest first: everything after this one is older still.
          reachedFrom = true;
          continue;
        }
      }
      // A transaction may appear twice (mempool's fork lists mempool ones twice; one may confirm
      // between two pages): the confirmed sighting wins.
      const before = seen.get(tx.txid);
      if (!before || (!before.block && block)) seen.set(tx.txid, { tx, block });
    }
    if (reachedFrom) break;
    // The first answer holds mempool plus up to 25 confirmed (mempool's fork: up to 50 in all);
    // fewer than 25 in all means the history ended. Later pages end on an empty page, whatever
    // page size the server uses.
    if (page === 1 ? txs.length < PAGE : txs.length === 0) {
      if (page > 1 && lastSeen) await checkStillConfirmed(rc, lastSeen);
      break;
    }
    path = lastSeen ? `/address/${a}/txs/chain/${lastSeen.txid}` : `/address/${a}/txs/chain`;
  }
  return seen;
}

/**
 * electrs answers an empty page when `last_seen_txid` left the chain (a reorg between two pages),
 * which would end the history early: re-check it so the scan fails and is retried instead.
 */
async function checkStillConfirmed(rc: RestClient, last: { txid: string; block: BlockRef }): Promise<void> {
  const now = await txStatus(rc, last.txid);
  if (!now || now.hash !== last.block.hash)
    throw new ChainSourceError(
      `transaction ${last.txid} left block ${last.block.height} while its address was paged (reorg): retried next loop`,
    );
}

/** Where a transfer is now, checking its output still pays what was seen (see createEsploraSource). */
async function locate(rc: RestClient, t: SeenTransfer): Promise<Location> {
  const path = `/tx/${encodeURIComponent(t.txHash)}`;
  const body = await rc.getJson(path, true);
  if (body === null) return null;
  const [tx] = txList(path, [body], rc.malformed);
  const out = tx?.vout[t.position];
  if (
    !tx ||
    tx.txid !== t.txHash ||
    out?.scriptpubkey_address !== t.address ||
    (t.amount > 0n && BigInt(out.value) !== t.amount)
  )
    throw new TransferMismatchError(
      `${t.txHash}:${t.position} no longer pays ${t.address} what was seen (the provider answers another output there): not credited`,
    );
  return blockOf(path, tx.status, rc.malformed) ?? 'unconfirmed';
}

/** A transaction list as documented (txid, vout[{scriptpubkey_address?, value}], status). */
function txList(path: string, body: unknown, malformed: RestClient['malformed']): EsploraTx[] {
  if (!Array.isArray(body)) throw malformed(path, 'not a list of transactions', JSON.stringify(body));
  for (const tx of body as Array<Partial<EsploraTx> | null>) {
    const ok =
      typeof tx === 'object' &&
      tx !== null &&
      typeof tx.txid === 'string' &&
      Array.isArray(tx.vout) &&
      tx.vout.every(
        (o) =>
          typeof o === 'object' &&
          o !== null &&
          (o.scriptpubkey_address === undefined || typeof o.scriptpubkey_address === 'string') &&
          // Satoshis are integers; every BTC/LTC amount (at most 8.4e15) is below 2^53, so a value
          // that is not a safe integer means a broken answer, never a payment to round.
          Number.isSafeInteger(o.value) &&
          o.value >= 0,
      );
    if (!ok) throw malformed(path, 'a transaction without txid, vout or integer values', JSON.stringify(tx));
  }
  return body as EsploraTx[];
}

/** The block of a status object, null when unconfirmed. */
function blockOf(path: string, status: unknown, malformed: RestClient['malformed']): BlockRef | null {
  const s = status as EsploraStatus | null;
  if (typeof s !== 'object' || s === null || typeof s.confirmed !== 'boolean')
    throw malformed(path, 'a status without `confirmed`', JSON.stringify(status));
  if (!s.confirmed) return null;
  if (!Number.isSafeInteger(s.block_height) || typeof s.block_hash !== 'string' || !HASH.test(s.block_hash))
    throw malformed(path, 'a confirmed status without block_height and block_hash', JSON.stringify(status));
  return { height: s.block_height as number, hash: s.block_hash };
}

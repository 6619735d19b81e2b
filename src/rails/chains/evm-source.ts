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
import {
  type EvmLog,
  type EvmReceipt,
  readBlock,
  readLog,
  readReceipt,
  readTransaction,
  TRANSFER_TOPIC,
  transferOfLog,
} from './evm-answers.js';
import {
  addressTopic,
  malformedAnswer,
  readQuantity,
  toAddress,
  toHash,
  toQuantity,
  uint256OfData,
} from './evm-hex.js';
import { createJsonRpc, type JsonRpc } from './json-rpc.js';
import { providerTarget, UNLIMITED } from './provider-http.js';

export { TRANSFER_TOPIC };

/** Addresses per eth_getLogs topic list: java-tron's default maxSubTopics is 1000, providers vary. */
const TOPIC_BATCH = 500;
/** The 4-byte selector of ERC-20 `decimals()`. */
const DECIMALS_CALL = '0x313ce567';

/** How this source writes addresses on the wire (TRON's JSON-RPC takes 20-byte hex like Ethereum). */
export interface AddressCodec {
  /** The watch list's address as 0x + 40 hex (any case; made canonical by `toAddress`). */
  toHex(address: string): string;
}

const identityCodec: AddressCodec = { toHex: (a) => a };

/**
 * A chain source over Ethereum JSON-RPC (docs/decisions.md sections 25 and 34): Ethereum and BNB
 * Smart Chain nodes or providers, and java-tron's JSON-RPC with a TRON address codec. Every hash,
 * address and quantity sent is canonical (evm-hex.ts); every answer is read strictly
 * (evm-answers.ts). Token transfers come from `eth_getLogs` for the token's Transfer events whose
 * `to` topic is a watched address; a log of another contract, a Transfer whose topics are not
 * 32-byte address words, a log to an address not asked for, or a receipt that disagrees with its log
 * means the node does not apply the filter or lies: the scan fails (nothing from it is used, the
 * cursor stays) with a message naming it. Each log's position inside its transaction comes from the
 * receipt (never the block-wide log index). Coin transfers come from blocks with their transactions
 * (`to` watched, value > 0, receipt status 1; position -1). Errors: ChainSourceError.
 */
export function createEvmSource(
  settings: SourceSettings,
  opts: {
    codec?: AddressCodec;
    maxRange?: number;
    keyHeader?: string;
    fetch?: typeof fetch;
    backoffMs?: number;
  } = {},
): ChainSource {
  const ctx = evmContext(settings, opts);
  return {
    maxRange: opts.maxRange ?? 100,
    head: () => head(ctx),
    async blockHash(height: number) {
      return (await block(ctx, height, false))?.hash ?? null;
    },
    async scan(from: number, to: number, watch: WatchList) {
      // Every watched address for both assets: a token sent to a coin order's address (or the
      // reverse) is recorded too, and listed as unmatched rather than never seen.
      const all = [...new Set([...watch.token, ...watch.coin])];
      return [...(await tokenTransfers(ctx, from, to, all)), ...(await coinTransfers(ctx, from, to, all))];
    },
    locate: (t: SeenTransfer) => locate(ctx, t),
    verifyNetwork: () => verifyNetwork(ctx),
  };
}

/** What every request of one EVM source uses: its settings, node, token (canonical hex) and codec. */
interface EvmContext {
  settings: SourceSettings;
  rpc: JsonRpc;
  token: string | null;
  /** A watched address as canonical 0x + 40 hex. */
  hexOf: (address: string) => string;
}

function evmContext(
  settings: SourceSettings,
  opts: { codec?: AddressCodec; keyHeader?: string; fetch?: typeof fetch; backoffMs?: number },
): EvmContext {
  const codec = opts.codec ?? identityCodec;
  const hexOf = (address: string) => toAddress(codec.toHex(address));
  // Providers take the key as a bearer token; TronGrid wants its own header (TRON-PRO-API-KEY).
  const headers: Record<string, string> = !settings.apiKey
    ? {}
    : opts.keyHeader
      ? { [opts.keyHeader]: settings.apiKey }
      : { authorization: `Bearer ${settings.apiKey}` };
  const rpc = createJsonRpc(providerTarget(settings.url, headers), {
    budget: settings.budget ?? UNLIMITED,
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
  });
  const token = settings.tokenContract ? hexOf(settings.tokenContract) : null;
  return { settings, rpc, token, hexOf };
}

async function block(ctx: EvmContext, height: number, full: boolean) {
  return readBlock(height, await ctx.rpc.call('eth_getBlockByNumber', [toQuantity(height), full]));
}

async function receipt(ctx: EvmContext, txHash: string) {
  const hash = toHash(txHash);
  return readReceipt(hash, await ctx.rpc.call('eth_getTransactionReceipt', [hash]));
}

async function transaction(ctx: EvmContext, txHash: string) {
  const hash = toHash(txHash);
  return readTransaction(hash, await ctx.rpc.call('eth_getTransactionByHash', [hash]));
}

/** `eth_blockNumber` and that block's hash. */
async function head(ctx: EvmContext): Promise<BlockRef> {
  const height = Number(
    readQuantity('eth_blockNumber', 'block number', await ctx.rpc.call('eth_blockNumber', [])),
  );
  if (!Number.isSafeInteger(height))
    throw new ChainSourceError(`eth_blockNumber: ${height} is not a block height`);
  const b = await block(ctx, height, false);
  if (!b) throw new ChainSourceError(`the node has no block ${height}, its own head`);
  return { height, hash: b.hash };
}

/** The receipt's log matching `log` (same index, contract, topics and data), or a lie. */
function positionIn(r: EvmReceipt, log: EvmLog): number {
  const position = r.logs.findIndex((l) => l.logIndex === log.logIndex);
  const same = r.logs[position];
  if (
    !same ||
    same.address !== log.address ||
    same.data !== log.data ||
    same.topics.join() !== log.topics.join() ||
    r.blockHash !== log.blockHash
  )
    throw new ChainSourceError(
      `the receipt of ${log.transactionHash} does not hold the log eth_getLogs answered (a reorg between the two, or a node that lies): retried next loop`,
    );
  return position;
}

/** Token transfers to `watched` in blocks `from..to`: eth_getLogs by batches of addresses, each log checked. */
async function tokenTransfers(
  ctx: EvmContext,
  from: number,
  to: number,
  watched: readonly string[],
): Promise<SeenTransfer[]> {
  const token = ctx.token;
  if (!token || watched.length === 0) return [];
  const byHex = new Map(watched.map((a) => [ctx.hexOf(a), a]));
  const out: SeenTransfer[] = [];
  const receipts = new Map<string, EvmReceipt | null>();
  const hexes = [...byHex.keys()];
  for (let i = 0; i < hexes.length; i += TOPIC_BATCH) {
    const topicTo = hexes.slice(i, i + TOPIC_BATCH).map(addressTopic);
    const logs = await ctx.rpc.call('eth_getLogs', [
      {
        fromBlock: toQuantity(from),
        toBlock: toQuantity(to),
        address: token,
        topics: [TRANSFER_TOPIC, null, topicTo],
      },
    ]);
    if (!Array.isArray(logs)) throw malformedAnswer('eth_getLogs', 'list of logs', logs);
    for (const raw of logs) {
      const log = readLog('eth_getLogs', raw);
      if (log.removed) continue;
      const transfer = checkedTransfer(log, from, to, token, byHex);
      let r = receipts.get(log.transactionHash);
      if (r === undefined) {
        r = await receipt(ctx, log.transactionHash);
        receipts.set(log.transactionHash, r);
      }
      if (!r)
        throw new ChainSourceError(
          `the node has a log of ${log.transactionHash} but not its receipt (a reorg between the two?): retried next loop`,
        );
      const position = positionIn(r, log);
      if (!r.succeeded) continue;
      const blockRef = { height: log.blockNumber, hash: log.blockHash };
      out.push({
        asset: 'token',
        address: transfer.address,
        txHash: log.transactionHash,
        position,
        amount: transfer.value,
        block: blockRef,
      });
    }
  }
  return out.filter((t) => t.amount > 0n);
}

/** Coin transfers to `watched` in blocks `from..to`, read from each block's transactions. */
async function coinTransfers(
  ctx: EvmContext,
  from: number,
  to: number,
  watched: readonly string[],
): Promise<SeenTransfer[]> {
  if (!ctx.settings.info.coin || watched.length === 0) return [];
  const byHex = new Map(watched.map((a) => [ctx.hexOf(a), a]));
  const out: SeenTransfer[] = [];
  for (let h = from; h <= to; h++) {
    // A block or receipt missing below the head the node gave (a load-balanced provider whose
    // backends disagree, a reorg mid-scan) fails the scan, as on the token path: skipping it would
    // move the cursor past payments never seen.
    const b = await block(ctx, h, true);
    if (!b)
      throw new ChainSourceError(
        `the node has no block ${h}, at or below the head it gave: retried next loop`,
      );
    for (const tx of b.transactions) {
      const address = tx.to ? byHex.get(tx.to) : undefined;
      if (!address || tx.value === 0n) continue;
      const r = await receipt(ctx, tx.hash);
      if (!r || r.blockHash !== b.hash)
        throw new ChainSourceError(
          `the node has ${tx.hash} in block ${h} but not its receipt there (a reorg between the two?): retried next loop`,
        );
      if (!r.succeeded) continue;
      out.push({
        asset: 'coin',
        address,
        txHash: tx.hash,
        position: -1,
        amount: tx.value,
        block: { height: b.number, hash: b.hash },
      });
    }
  }
  return out;
}

/** Where a transfer is now, checking it still pays what was seen. */
async function locate(ctx: EvmContext, t: SeenTransfer): Promise<Location> {
  const r = await receipt(ctx, t.txHash);
  if (!r) {
    // Back in the mempool after a reorg (geth re-adds the transactions of dropped blocks), or gone.
    const tx = await transaction(ctx, t.txHash);
    return tx && tx.blockNumber === null ? 'unconfirmed' : null;
  }
  if (!r.succeeded) return null;
  await checkStillPays(ctx, t, r);
  return { height: r.blockNumber, hash: r.blockHash };
}

/** Checks the transfer still pays what was seen at its position; throws when the node says otherwise. */
async function checkStillPays(ctx: EvmContext, t: SeenTransfer, r: EvmReceipt): Promise<void> {
  const ours = ctx.hexOf(t.address);
  let pays: boolean;
  if (t.position < 0) {
    const tx = await transaction(ctx, t.txHash);
    pays = tx !== null && tx.to === ours && (t.amount === 0n || tx.value === t.amount);
  } else {
    const log = r.logs[t.position];
    const transfer = log && log.address === ctx.token ? transferOfLog(log) : null;
    pays = transfer !== null && transfer.to === ours && (t.amount === 0n || transfer.value === t.amount);
  }
  if (!pays)
    throw new TransferMismatchError(
      `${toHash(t.txHash)} at position ${t.position} no longer pays ${t.address} what was seen (the node answers another transfer there): not credited`,
    );
}

/** `eth_chainId` must be the chain's (or `chain_id`); then the token is checked (checkToken). */
async function verifyNetwork(ctx: EvmContext): Promise<NetworkFacts> {
  const { settings } = ctx;
  const id = readQuantity('eth_chainId', 'chain id', await ctx.rpc.call('eth_chainId', []));
  const chainId = Number(id);
  const expected = settings.chainId;
  if (expected !== null && id !== BigInt(expected))
    throw new ChainMismatchError(
      `the URL serves ${networkName(chainId)}, not ${networkName(expected)} (${settings.info.chain}); give chain_id for a test network`,
      'chain_id',
    );
  if (!ctx.token || !settings.info.token) return { network: networkName(chainId), tokenDecimals: null };
  const decimals = await checkToken(ctx, ctx.token, settings.info.token.decimals, chainId);
  return { network: networkName(chainId), tokenDecimals: decimals };
}

/** The token contract must exist on this network and have the chain's USDT decimals; answers them. */
async function checkToken(
  ctx: EvmContext,
  token: string,
  expected: number,
  chainId: number,
): Promise<number> {
  const { settings } = ctx;
  const code = await ctx.rpc.call('eth_getCode', [token, 'latest']);
  if (typeof code !== 'string' || !/^0x[0-9a-f]*$/i.test(code))
    throw malformedAnswer('eth_getCode', 'code', code);
  if (/^0x0*$/i.test(code))
    throw new ChainMismatchError(
      `no contract at ${settings.tokenContract} on ${networkName(chainId)}: the token address is of another network`,
      'token_contract',
    );
  const answer = await ctx.rpc.call('eth_call', [{ to: token, data: DECIMALS_CALL }, 'latest']);
  const decimals = uint256OfData(answer);
  if (decimals === null) throw malformedAnswer('eth_call decimals()', 'uint256', answer);
  if (decimals !== BigInt(expected))
    throw new ChainMismatchError(
      `the token at ${settings.tokenContract} has ${decimals} decimals, not ${expected} as USDT on ${settings.info.chain}: another token`,
      'token_contract',
    );
  return Number(decimals);
}

/**
 * A log of `eth_getLogs` checked against what was asked: the configured token, a well-formed
 * Transfer (topics of 32-byte address words, one 32-byte value), to a watched address, inside the
 * block range. Anything else means the node ignored the filter or lies: a ChainSourceError.
 */
function checkedTransfer(
  log: EvmLog,
  from: number,
  to: number,
  token: string,
  byHex: ReadonlyMap<string, string>,
): { address: string; value: bigint } {
  const lie = (what: string) =>
    new ChainSourceError(
      `eth_getLogs answered ${what} in ${log.transactionHash}: the node does not apply the filter (or lies); nothing from this scan is used, retried next loop`,
    );
  if (log.address !== token) throw lie(`a log of contract ${log.address}, not the configured token ${token}`);
  const transfer = transferOfLog(log);
  if (!transfer)
    throw lie(
      'a Transfer log whose topics are not 32-byte address words or whose value is not one 32-byte word',
    );
  const address = byHex.get(transfer.to);
  if (!address) throw lie(`a Transfer to ${transfer.to}, an address not asked for`);
  if (log.blockNumber < from || log.blockNumber > to)
    throw lie(`a log of block ${log.blockNumber}, outside ${from}..${to}`);
  return { address, value: transfer.value };
}

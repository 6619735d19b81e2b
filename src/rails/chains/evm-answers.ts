import { ChainSourceError } from './chain-source.js';
import {
  addressOfTopic,
  malformedAnswer,
  readAddress,
  readHash,
  readQuantity,
  readSmallQuantity,
  uint256OfData,
} from './evm-hex.js';

// The shapes an EVM-style node answers (Ethereum JSON-RPC as geth, erigon, Anvil, Hardhat Network,
// Ganache and java-tron serve it), read strictly: every field the watcher uses is checked before it
// is believed (docs/decisions.md section 34). Hashes and addresses come back as 0x + lower-case hex.

/** keccak256("Transfer(address,address,uint256)"): the ERC20 (and TRC20) Transfer event's topic 0. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** A log as the watcher uses it. */
export interface EvmLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: bigint;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  removed: boolean;
}

/** A receipt as the watcher uses it. */
export interface EvmReceipt {
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  /** True only for status 0x1 (a receipt without status, or 0x0, pays nothing). */
  succeeded: boolean;
  logs: EvmLog[];
}

/** A block header with its transactions (hashes, or objects when asked with full transactions). */
export interface EvmBlock {
  number: number;
  hash: string;
  transactions: Array<{ hash: string; to: string | null; value: bigint; blockNumber: number | null }>;
}

/** A Transfer log's parties and value; null when the log is not a well-formed ERC-20 Transfer. */
export function transferOfLog(log: EvmLog): { from: string; to: string; value: bigint } | null {
  if (log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC) return null;
  const from = addressOfTopic(log.topics[1]);
  const to = addressOfTopic(log.topics[2]);
  const value = uint256OfData(log.data);
  if (from === null || to === null || value === null) return null;
  return { from, to, value };
}

/** A log from `eth_getLogs` or a receipt. */
export function readLog(method: string, raw: unknown): EvmLog {
  const l = raw as Record<string, unknown> | null;
  if (typeof l !== 'object' || l === null) throw malformedAnswer(method, 'log', raw);
  if (!Array.isArray(l.topics) || l.topics.some((t) => typeof t !== 'string'))
    throw malformedAnswer(method, 'log topics', l.topics);
  if (typeof l.data !== 'string' || !/^0x([0-9a-f]{2})*$/i.test(l.data))
    throw malformedAnswer(method, 'log data', l.data);
  return {
    address: readAddress(method, 'log address', l.address),
    topics: (l.topics as string[]).map((t) => t.toLowerCase()),
    data: l.data.toLowerCase(),
    logIndex: readQuantity(method, 'logIndex', l.logIndex),
    blockNumber: readSmallQuantity(method, 'log blockNumber', l.blockNumber),
    blockHash: readHash(method, 'log blockHash', l.blockHash),
    transactionHash: readHash(method, 'log transactionHash', l.transactionHash),
    removed: l.removed === true,
  };
}

/** A receipt from `eth_getTransactionReceipt`, which must be the receipt of `txHash`; null stays null. */
export function readReceipt(txHash: string, raw: unknown): EvmReceipt | null {
  const method = 'eth_getTransactionReceipt';
  if (raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r !== 'object' || !Array.isArray(r.logs)) throw malformedAnswer(method, 'receipt', raw);
  const transactionHash = readHash(method, 'receipt transactionHash', r.transactionHash);
  if (transactionHash !== txHash)
    throw new ChainSourceError(
      `${method}: asked for ${txHash}, the node answered the receipt of ${transactionHash}: nothing from this answer is used`,
    );
  if (r.status !== undefined && r.status !== null && typeof r.status !== 'string')
    throw malformedAnswer(method, 'receipt status', r.status);
  const status = typeof r.status === 'string' ? readQuantity(method, 'receipt status', r.status) : null;
  return {
    transactionHash,
    blockNumber: readSmallQuantity(method, 'receipt blockNumber', r.blockNumber),
    blockHash: readHash(method, 'receipt blockHash', r.blockHash),
    succeeded: status === 1n,
    logs: r.logs.map((l) => readLog(method, l)),
  };
}

/** A block from `eth_getBlockByNumber(height)`, which must be block `height`; null stays null. */
export function readBlock(height: number, raw: unknown): EvmBlock | null {
  const method = 'eth_getBlockByNumber';
  if (raw === null) return null;
  const b = raw as Record<string, unknown>;
  if (typeof b !== 'object' || !Array.isArray(b.transactions)) throw malformedAnswer(method, 'block', raw);
  const number = readSmallQuantity(method, 'block number', b.number);
  if (number !== height)
    throw new ChainSourceError(
      `${method}: asked for block ${height}, the node answered block ${number}: nothing from this answer is used`,
    );
  return {
    number,
    hash: readHash(method, 'block hash', b.hash),
    transactions: b.transactions.map((t) => {
      if (typeof t === 'string')
        return { hash: readHash(method, 'transaction hash', t), to: null, value: 0n, blockNumber: number };
      const tx = t as Record<string, unknown>;
      if (typeof tx !== 'object' || tx === null) throw malformedAnswer(method, 'transaction', t);
      return {
        hash: readHash(method, 'transaction hash', tx.hash),
        to: tx.to === null || tx.to === undefined ? null : readAddress(method, 'transaction to', tx.to),
        value: readQuantity(method, 'transaction value', tx.value),
        blockNumber: number,
      };
    }),
  };
}

/** A transaction from `eth_getTransactionByHash(txHash)`: its recipient, value and block (null: pending). */
export function readTransaction(
  txHash: string,
  raw: unknown,
): { to: string | null; value: bigint; blockNumber: number | null } | null {
  const method = 'eth_getTransactionByHash';
  if (raw === null) return null;
  const tx = raw as Record<string, unknown>;
  if (typeof tx !== 'object') throw malformedAnswer(method, 'transaction', raw);
  const hash = readHash(method, 'transaction hash', tx.hash);
  if (hash !== txHash)
    throw new ChainSourceError(
      `${method}: asked for ${txHash}, the node answered ${hash}: nothing from this answer is used`,
    );
  return {
    to: tx.to === null || tx.to === undefined ? null : readAddress(method, 'transaction to', tx.to),
    value: readQuantity(method, 'transaction value', tx.value),
    blockNumber:
      tx.blockNumber === null || tx.blockNumber === undefined
        ? null
        : readSmallQuantity(method, 'transaction blockNumber', tx.blockNumber),
  };
}

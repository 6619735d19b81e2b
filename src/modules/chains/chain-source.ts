import type { ChainInfo } from './chain-catalog.js';

/** A block as a source names it: height and hash (lower-case hex without 0x, or as the chain writes it). */
export interface BlockRef {
  height: number;
  hash: string;
}

/**
 * A transfer to a watched address, as a source read it from its chain (issue 20 section 1).
 * `amount` is in the asset's integer units (wei, satoshi, nanoton, 10^-6 USDT): never a float.
 */
export interface SeenTransfer {
  asset: 'coin' | 'token';
  /** The receiving address exactly as the watch list gave it (so that it matches the order's). */
  address: string;
  /** The transaction hash as the chain gives it (hex with or without 0x; TON: base64 or hex). */
  txHash: string;
  /**
   * The transfer's index inside its own transaction: the log's position among that transaction's
   * logs (EVM, TRON), the output index (Bitcoin, Litecoin), 0 for a TON transaction's incoming
   * message; -1 for an EVM transaction's own value. Never a block-wide index.
   */
  position: number;
  amount: bigint;
  /** The block that holds it; null while it is not in a block (mempool). */
  block: BlockRef | null;
}

/** The addresses to look at: only those of orders pending or ended within the late window. */
export interface WatchList {
  /** Addresses of coin orders. */
  coin: readonly string[];
  /** Addresses of token (USDT) orders. */
  token: readonly string[];
}

/** The settings a source is built with (the operator's, over the environment's, over the defaults). */
export interface SourceSettings {
  info: ChainInfo;
  /** The operator's node or provider URL: trusted configuration, may be on a private network. */
  url: string;
  apiKey: string | null;
  /** The USDT contract or jetton master to read (null: the chain has no token). */
  tokenContract: string | null;
  /** EVM: the chain id eth_chainId must answer. */
  chainId: number | null;
}

/**
 * What a watcher needs from a chain's API. Every method throws ChainSourceError on a provider
 * failure (HTTP error, 429, malformed answer), with a message an operator can act on.
 */
export interface ChainSource {
  /** The newest block. */
  head(): Promise<BlockRef>;
  /** The hash of the block at `height` on the current best chain, or null above the head. */
  blockHash(height: number): Promise<string | null>;
  /**
   * Transfers to the watched addresses in blocks `from`..`to` (inclusive; from <= to <= head).
   * Address-based APIs (Esplora, toncenter) may also return newer or not-yet-mined transfers; the
   * watcher keeps what is new by its key.
   */
  scan(from: number, to: number, watch: WatchList): Promise<SeenTransfer[]>;
  /**
   * Re-checks a transfer before it is credited: the block that holds it now on the best chain, or
   * null when it is in none (dropped by a reorg, or never mined).
   */
  locate(transfer: SeenTransfer): Promise<BlockRef | null>;
  /** The most blocks one `scan` call may cover (providers cap log ranges; Esplora pages by address). */
  readonly maxRange: number;
}

/** A provider failure, with what to tell the operator. `status` is the HTTP status when there was one. */
export class ChainSourceError extends Error {
  override name = 'ChainSourceError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

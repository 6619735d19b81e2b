import type { ChainInfo } from './chain-catalog.js';

/** A block as a source names it: height and hash (lower-case hex without 0x, or as the chain writes it). */
export interface BlockRef {
  height: number;
  hash: string;
}

/**
 * A transfer to a watched address, as a source read it from its chain (docs/decisions.md section 25).
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
  /**
   * The chain's time of its transaction, where the source reads it (TON): a transfer made before an
   * order existed is not that order's payment (docs/decisions.md section 34).
   */
  paidAt?: Date | undefined;
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
  /**
   * The network the URL must serve (docs/decisions.md section 34): the chain id eth_chainId must
   * answer (EVM, TRON), or TON's `global_id` (-239 mainnet, -3 testnet).
   */
  chainId: number | null;
  /** Bitcoin, Litecoin: the genesis block hash the node must have at height 0 (lower-case hex). */
  genesisHash?: string | null;
  /** The chain's request budget (requests per second), shared by every request of the source. */
  budget?: RequestBudget;
  /** Milliseconds a provider has to answer (default 10 s). */
  timeoutMs?: number;
}

/** What a source learnt when it checked its network (`verifyNetwork`). */
export interface NetworkFacts {
  /** The network as the provider names it, for operators: "chain 1", "global_id -239", "genesis 0000…". */
  network: string;
  /** The token's decimals read from its contract (EVM, TRON) or jetton master (TON); null: none read. */
  tokenDecimals: number | null;
}

/**
 * Where a transfer is now (`locate`): its block on the best chain; `'unconfirmed'` when the provider
 * knows it but it is in no block (a mempool transaction); null when the provider does not know it
 * (replaced, dropped by a reorg, or never seen by this provider).
 */
export type Location = BlockRef | 'unconfirmed' | null;

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
   * Re-checks a transfer before it is credited: the block that holds it now on the best chain,
   * `'unconfirmed'` while it waits in the mempool, or null when the provider does not know it. A
   * transfer the provider holds but that no longer pays what was seen (another contract, address or
   * amount at its position) is a TransferMismatchError: a node that lies is never believed.
   */
  locate(transfer: SeenTransfer): Promise<Location>;
  /**
   * Checks the URL serves the expected network (chain id, TON global_id or genesis hash) and that the
   * token exists there with the chain's decimals (docs/decisions.md section 34). Throws
   * ChainMismatchError naming the setting to fix, ChainSourceError when the provider fails.
   */
  verifyNetwork(): Promise<NetworkFacts>;
  /** The most blocks one `scan` call may cover (providers cap log ranges; Esplora pages by address). */
  readonly maxRange: number;
  /** True when `scan` also returns mempool transfers: the loop asks every poll, not only on new blocks. */
  readonly seesMempool?: boolean;
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

/**
 * The provider holds a recorded transfer but no longer pays what was seen at its position (another
 * contract, address or amount there: a re-executed transaction after a reorg, a token setting
 * changed, a node that lies). Only that transfer is in doubt: the watcher holds it for review and
 * goes on with the others (docs/decisions.md section 34).
 */
export class TransferMismatchError extends ChainSourceError {
  override name = 'TransferMismatchError';
}

/**
 * The URL serves another network than the one configured, or the token is not there as expected:
 * `field` is the setting to fix (`chain_id`, `token_contract`, `genesis_hash` or `url`).
 */
export class ChainMismatchError extends ChainSourceError {
  override name = 'ChainMismatchError';
  constructor(
    message: string,
    readonly field: 'chain_id' | 'token_contract' | 'genesis_hash' | 'url',
  ) {
    super(message);
  }
}

/**
 * A chain's requests-per-second budget (docs/decisions.md section 34): every request of every
 * source of the chain takes a slot first, so a loop never sends faster than the provider's plan
 * allows (`CHAIN_<CHAIN>_RPS`); a 429 pauses the whole chain for its backoff.
 */
export interface RequestBudget {
  /** The budget in requests per second. */
  readonly rps: number;
  /** Waits for the next free slot (slots are 1/rps seconds apart, in call order). */
  take(): Promise<void>;
  /** No slot is given before `ms` from now (a provider's 429 or Retry-After). */
  pause(ms: number): void;
}

import { bigint, boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from '../columns.js';

// Tables of the chains module: only src/rails/chains/ reads and writes them (docs/architecture.md).

/**
 * The built-in chain watchers (docs/decisions.md sections 25 and 34): one row per chain, the operator's settings (null: the
 * environment's value or the chain's default) and the watcher's own state (cursor, head, errors).
 */
export const chainWatchers = pgTable('chain_watchers', {
  /** ethereum, bsc, tron, ton, bitcoin, litecoin */
  chain: text('chain').primaryKey(),
  url: text('url'),
  /** Sealed with the server's secret box; never shown. */
  apiKeySealed: text('api_key_sealed'),
  confirmations: integer('confirmations'),
  tokenContract: text('token_contract'),
  pollSeconds: integer('poll_seconds'),
  /** EVM: the chain id checked against eth_chainId (null: the chain's own). */
  chainId: bigint('chain_id', { mode: 'number' }),
  enabled: boolean('enabled'),
  /** Bitcoin, Litecoin: the genesis hash the URL must serve (null: mainnet's). */
  genesisHash: text('genesis_hash'),
  /** Requests per second to the provider (null: the environment's or the free plan's). */
  rps: integer('rps'),
  /**
   * The last network check (docs/decisions.md section 34): the network the URL serves, the token's
   * decimals read from its contract, when, and for which settings (a digest: settings changed since
   * are checked again before the next scan).
   */
  network: text('network'),
  tokenDecimals: integer('token_decimals'),
  verifiedAt: ts('verified_at'),
  verifiedFor: text('verified_for'),
  cursorHeight: bigint('cursor_height', { mode: 'number' }),
  cursorHash: text('cursor_hash'),
  headHeight: bigint('head_height', { mode: 'number' }),
  headHash: text('head_hash'),
  lastError: text('last_error'),
  lastErrorAt: ts('last_error_at'),
  lastSuccessAt: ts('last_success_at'),
  /** Transfers seen lately, for the console: [{tx_hash, position, address, amount, height, at}]. */
  recent: jsonb('recent').$type<Array<Record<string, unknown>>>(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * The chain watchers' settings in the environment (docs/decisions.md sections 25 and 34): one group
 * of variables per chain, part of the one configuration schema (`src/config.ts`).
 */
import { type TSchema, Type } from '@sinclair/typebox';

/** The chains of the built-in watchers (rails/chains/chain-catalog.ts `CHAIN_NAMES`). */
export const WATCHED_CHAINS = ['ethereum', 'bsc', 'tron', 'ton', 'bitcoin', 'litecoin'] as const;
export type WatchedChain = (typeof WATCHED_CHAINS)[number];

/**
 * `CHAIN_<CHAIN>_URL`, `_API_KEY`, `_CONFIRMATIONS`, `_TOKEN_CONTRACT`, `_POLL_SECONDS`, `_RPS` per
 * chain (docs/decisions.md sections 25 and 34): the same settings as `PUT /admin/chains/{chain}`,
 * whose values win.
 */
type ChainEnvField = 'URL' | 'API_KEY' | 'CONFIRMATIONS' | 'TOKEN_CONTRACT' | 'POLL_SECONDS' | 'RPS';
export type ChainEnvKey = `CHAIN_${Uppercase<WatchedChain>}_${ChainEnvField}`;

export function chainEnvSchema(): Record<ChainEnvKey, TSchema> {
  const out = {} as Record<string, TSchema>;
  for (const chain of WATCHED_CHAINS) {
    const p = `CHAIN_${chain.toUpperCase()}_`;
    const w = `${chain} watcher:`;
    out[`${p}URL`] = Type.Optional(
      Type.String({
        pattern: '^https?://[^\\s]+$',
        description: `${w} URL of your node or provider (README "Crypto guide"); set, the watcher runs in the worker`,
      }),
    );
    out[`${p}API_KEY`] = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: `${w} the provider's API key, if it needs one (never shown)`,
      }),
    );
    out[`${p}CONFIRMATIONS`] = Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: `${w} confirmations before a credit (the payment's block counts as 1)`,
      }),
    );
    out[`${p}TOKEN_CONTRACT`] = Type.Optional(
      Type.String({
        minLength: 20,
        maxLength: 100,
        description: `${w} the USDT contract or jetton master (default: mainnet's)`,
      }),
    );
    out[`${p}POLL_SECONDS`] = Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description: `${w} seconds between two polls (default: about the block time)`,
      }),
    );
    out[`${p}RPS`] = Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: `${w} requests per second sent to the provider; over it 429s are waited out with backoff (default: the provider's free plan, with or without an API key; README "Crypto guide")`,
      }),
    );
  }
  return out;
}

/** A chain's settings from the environment (unset fields: the admin API's or the chain's default). */
export interface ChainEnvSettings {
  readonly url?: string | undefined;
  readonly apiKey?: string | undefined;
  readonly confirmations?: number | undefined;
  readonly tokenContract?: string | undefined;
  readonly pollSeconds?: number | undefined;
  /** Requests per second to the provider (default: its free plan, chain-catalog.ts). */
  readonly rps?: number | undefined;
}

export function chainEnvSettings(e: Record<string, unknown>): Record<WatchedChain, ChainEnvSettings> {
  const out = {} as Record<WatchedChain, ChainEnvSettings>;
  for (const chain of WATCHED_CHAINS) {
    const p = `CHAIN_${chain.toUpperCase()}_`;
    out[chain] = Object.freeze({
      url: e[`${p}URL`] as string | undefined,
      apiKey: e[`${p}API_KEY`] as string | undefined,
      confirmations: e[`${p}CONFIRMATIONS`] as number | undefined,
      tokenContract: e[`${p}TOKEN_CONTRACT`] as string | undefined,
      pollSeconds: e[`${p}POLL_SECONDS`] as number | undefined,
      rps: e[`${p}RPS`] as number | undefined,
    });
  }
  return Object.freeze(out);
}

import type { ChainEnvSettings } from '../../config.js';
import type { ChainInfo } from './chain-catalog.js';

/** A chain's settings in force: the admin API's value, else the environment's, else the default. */
export interface EffectiveChainSettings {
  info: ChainInfo;
  enabled: boolean;
  url: string | null;
  apiKey: string | null;
  confirmations: number;
  tokenContract: string | null;
  pollSeconds: number;
  /** The network id the URL must serve: eth_chainId (EVM, TRON) or TON's global_id; null: unchecked. */
  chainId: number | null;
  /** Bitcoin, Litecoin: the genesis hash the URL must serve. */
  genesisHash: string | null;
  /** Requests per second sent to the provider (docs/decisions.md section 34). */
  rps: number;
}

/** The operator's stored settings (null: not set). */
export interface StoredChainSettings {
  url: string | null;
  apiKey: string | null;
  confirmations: number | null;
  tokenContract: string | null;
  pollSeconds: number | null;
  chainId: number | null;
  genesisHash?: string | null;
  rps?: number | null;
  enabled: boolean | null;
}

/**
 * Merges the three layers (docs/decisions.md section 25: the admin API's values win). A chain is
 * enabled when it has a URL, unless the operator set `enabled: false`. The API key comes opened
 * (never shown). The request budget defaults to the provider's free plan with or without a key.
 */
export function effectiveSettings(
  info: ChainInfo,
  stored: StoredChainSettings | null,
  env: ChainEnvSettings,
): EffectiveChainSettings {
  const url = stored?.url ?? env.url ?? null;
  const apiKey = stored?.apiKey ?? env.apiKey ?? null;
  return {
    info,
    url,
    enabled: url !== null && stored?.enabled !== false,
    apiKey,
    confirmations: stored?.confirmations ?? env.confirmations ?? info.confirmations,
    tokenContract: stored?.tokenContract ?? env.tokenContract ?? info.token?.mainnetContract ?? null,
    pollSeconds: stored?.pollSeconds ?? env.pollSeconds ?? info.pollSeconds,
    chainId: stored?.chainId ?? info.chainId ?? null,
    genesisHash: stored?.genesisHash ?? info.genesisHash ?? null,
    rps: stored?.rps ?? env.rps ?? (apiKey ? info.rps.withKey : info.rps.withoutKey),
  };
}

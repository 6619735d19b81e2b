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
  chainId: number | null;
}

/**
 * Merges the three layers (issue 20: "the admin API's values win"). A chain is enabled when it has
 * a URL, unless the operator set `enabled: false`. The API key comes opened (never shown).
 */
export function effectiveSettings(
  info: ChainInfo,
  stored: {
    url: string | null;
    apiKey: string | null;
    confirmations: number | null;
    tokenContract: string | null;
    pollSeconds: number | null;
    chainId: number | null;
    enabled: boolean | null;
  } | null,
  env: ChainEnvSettings,
): EffectiveChainSettings {
  const url = stored?.url ?? env.url ?? null;
  return {
    info,
    url,
    enabled: url !== null && stored?.enabled !== false,
    apiKey: stored?.apiKey ?? env.apiKey ?? null,
    confirmations: stored?.confirmations ?? env.confirmations ?? info.confirmations,
    tokenContract: stored?.tokenContract ?? env.tokenContract ?? info.token?.mainnetContract ?? null,
    pollSeconds: stored?.pollSeconds ?? env.pollSeconds ?? info.pollSeconds,
    chainId: stored?.chainId ?? info.chainId ?? null,
  };
}

/** The URL as shown to operators: user name, password and query (keys ride there) removed. */
export function redactUrl(url: string | null): string | null {
  if (!url) return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    const hadQuery = u.search !== '';
    u.search = '';
    // Providers put keys in the path too (Infura, Alchemy, QuickNode): keep the host and say so.
    const path = u.pathname.split('/').map((part) => (part.length >= 20 ? '***' : part));
    u.pathname = path.join('/');
    return `${u.toString()}${hadQuery ? '?***' : ''}`;
  } catch {
    return '***';
  }
}

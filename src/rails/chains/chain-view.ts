import { createHash } from 'node:crypto';
import { redactUrl } from '../../lib/redact.js';
import type { ChainName } from './chain-catalog.js';
import type { EffectiveChainSettings } from './chain-settings.js';
import type { ChainWatcherRow } from './chains-repository.js';

/**
 * A chain as `GET /admin/chains` answers it (chains-schemas.ts): settings in force with the URL
 * redacted (`redactUrl`, as everywhere), the key never shown, head, cursor, lag, errors, the last
 * network check and the latest transfers.
 */
export function chainView(chain: ChainName, s: EffectiveChainSettings, row: ChainWatcherRow | undefined) {
  const head = row?.headHeight != null ? { height: row.headHeight, hash: row.headHash } : null;
  const cursor = row?.cursorHeight != null ? { height: row.cursorHeight, hash: row.cursorHash } : null;
  return {
    chain,
    network: s.info.network,
    enabled: s.enabled,
    url: redactUrl(s.url),
    api_key_set: s.apiKey !== null,
    head,
    cursor,
    lag_blocks: head && cursor ? Math.max(0, head.height - cursor.height) : null,
    poll_seconds: s.pollSeconds,
    confirmations: s.confirmations,
    token_contract: s.info.token ? s.tokenContract : null,
    chain_id: s.chainId,
    genesis_hash: s.info.family === 'esplora' ? s.genesisHash : null,
    rps: s.rps,
    verified:
      row?.verifiedAt && row.network
        ? { at: row.verifiedAt.toISOString(), network: row.network, token_decimals: row.tokenDecimals }
        : null,
    last_error:
      row?.lastErrorAt && row.lastError
        ? { at: row.lastErrorAt.toISOString(), message: row.lastError }
        : null,
    last_success_at: row?.lastSuccessAt?.toISOString() ?? null,
    recent_transfers: row?.recent ?? [],
  };
}

/** Blocks a watcher may lag before the alert: three times its confirmations plus ten. */
export function lagLimit(s: EffectiveChainSettings): number {
  return 3 * s.confirmations + 10;
}

/** The settings a source and its network check depend on, as one string (a change: a new source). */
export function sourceKey(s: EffectiveChainSettings): string {
  return JSON.stringify([s.url, s.apiKey, s.tokenContract, s.chainId, s.genesisHash, s.rps]);
}

/** The digest of `sourceKey` kept with a network check (never the key itself: it holds the API key). */
export function verificationKey(s: EffectiveChainSettings): string {
  return createHash('sha256').update(sourceKey(s)).digest('hex');
}

/** A chain's row before it has one. */
export function emptyRow(chain: string): ChainWatcherRow {
  return {
    chain,
    url: null,
    apiKeySealed: null,
    confirmations: null,
    tokenContract: null,
    pollSeconds: null,
    chainId: null,
    genesisHash: null,
    rps: null,
    network: null,
    tokenDecimals: null,
    verifiedAt: null,
    verifiedFor: null,
    enabled: null,
    cursorHeight: null,
    cursorHash: null,
    headHeight: null,
    headHash: null,
    lastError: null,
    lastErrorAt: null,
    lastSuccessAt: null,
    recent: null,
    updatedAt: new Date(0),
  };
}

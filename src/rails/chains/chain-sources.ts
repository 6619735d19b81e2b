import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import type { EffectiveChainSettings } from './chain-settings.js';
import type { ChainSource, SourceSettings } from './chain-source.js';
import { createEsploraSource } from './esplora-source.js';
import { createEvmSource } from './evm-source.js';
import { createRequestBudget } from './provider-http.js';
import { createTonSource } from './ton-source.js';

/**
 * The source of each chain family (docs/decisions.md sections 25 and 34): EVM JSON-RPC for Ethereum
 * and BNB Smart Chain, java-tron's JSON-RPC for TRON (the same log scanner with TRON's address form),
 * toncenter v3 for TON, Esplora for Bitcoin and Litecoin; each with a request budget of the chain's
 * `rps` (the chains service keeps one source per chain while its settings stay the same). `tuning`
 * shortens the provider timeout and the 429 backoff (tests).
 */
export const chainSources = (
  settings: EffectiveChainSettings,
  tuning: { timeoutMs?: number; backoffMs?: number } = {},
): ChainSource => {
  const base: SourceSettings = {
    info: settings.info,
    url: settings.url ?? '',
    apiKey: settings.apiKey,
    tokenContract: settings.info.token ? settings.tokenContract : null,
    chainId: settings.chainId,
    genesisHash: settings.genesisHash,
    budget: createRequestBudget(settings.rps),
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  };
  const backoff = tuning.backoffMs !== undefined ? { backoffMs: tuning.backoffMs } : {};
  switch (settings.info.family) {
    case 'evm':
      return createEvmSource(base, backoff);
    case 'tron':
      return createEvmSource(base, { codec: tronCodec, keyHeader: 'tron-pro-api-key', ...backoff });
    case 'esplora':
      return createEsploraSource(base, backoff);
    case 'ton':
      return createTonSource(base, backoff);
  }
};

const base58check = createBase58check(sha256);

/**
 * TRON addresses on java-tron's JSON-RPC: base58check of 0x41 + the 20 account bytes (`T...`) on
 * our side, the 20 bytes as 0x hex in logs and topics (java-tron docs, "JSON-RPC API"). Hex given
 * as is (with 0x, or with the 41 prefix) is accepted too. Throws on a bad checksum or length.
 */
export const tronCodec = {
  toHex(address: string): string {
    const text = address.trim();
    const hex = /^(?:0x|41)?([0-9a-fA-F]{40})$/.exec(text);
    if (hex?.[1]) return `0x${hex[1].toLowerCase()}`;
    const raw = base58check.decode(text);
    if (raw.length !== 21 || raw[0] !== 0x41) throw new Error(`not a TRON address: ${text}`);
    return `0x${Buffer.from(raw.subarray(1)).toString('hex')}`;
  },
};

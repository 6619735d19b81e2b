import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { CHAINS } from './chain-catalog.js';
import { effectiveSettings } from './chain-settings.js';

const none = {
  url: null,
  apiKey: null,
  confirmations: null,
  tokenContract: null,
  pollSeconds: null,
  chainId: null,
  enabled: null,
};

describe('chain settings: the admin API over the environment over the defaults (docs/decisions.md section 25)', () => {
  it('defaults: confirmations and poll seconds per chain, mainnet USDT contracts, disabled without a URL', () => {
    const expected: Record<string, [number, number]> = {
      ethereum: [12, 12],
      bsc: [15, 3],
      tron: [19, 3],
      ton: [1, 5],
      bitcoin: [2, 60],
      litecoin: [6, 30],
    };
    for (const info of Object.values(CHAINS)) {
      const s = effectiveSettings(info, null, {});
      assert.deepEqual([s.confirmations, s.pollSeconds], expected[info.chain], info.chain);
      assert.equal(s.enabled, false);
    }
    assert.equal(
      effectiveSettings(CHAINS.bsc, null, {}).tokenContract,
      '0x55d398326f99059fF775485246999027B3197955',
    );
    assert.equal(CHAINS.bsc.token?.decimals, 18);
    assert.equal(CHAINS.ethereum.token?.decimals, 6);
    assert.equal(CHAINS.tron.token?.decimals, 6);
    assert.equal(CHAINS.ton.token?.decimals, 6);
  });

  it('CHAIN_<CHAIN>_* from the environment; the stored (admin API) values win; enabled: false stops it', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/chain-settings-test',
      ADMIN_TOKEN: 'x'.repeat(24),
      SECRET_KEY: 'y'.repeat(32),
      CHAIN_BITCOIN_URL: 'http://10.0.0.5:3002',
      CHAIN_BITCOIN_CONFIRMATIONS: '3',
      CHAIN_BITCOIN_POLL_SECONDS: '20',
      CHAIN_ETHEREUM_API_KEY: 'env-key',
    });
    const env = effectiveSettings(CHAINS.bitcoin, null, config.chains.bitcoin);
    assert.deepEqual(
      [env.url, env.confirmations, env.pollSeconds, env.enabled],
      ['http://10.0.0.5:3002', 3, 20, true],
    );
    const stored = effectiveSettings(CHAINS.bitcoin, { ...none, confirmations: 4 }, config.chains.bitcoin);
    assert.equal(stored.confirmations, 4);
    assert.equal(stored.pollSeconds, 20);
    assert.equal(
      effectiveSettings(CHAINS.bitcoin, { ...none, enabled: false }, config.chains.bitcoin).enabled,
      false,
    );
    assert.equal(config.chains.ethereum.apiKey, 'env-key');
  });

  it('a bad CHAIN_* value stops the start naming the variable', () => {
    assert.throws(
      () =>
        loadConfig({
          DATA_DIR: '/tmp/chain-settings-test',
          ADMIN_TOKEN: 'x'.repeat(24),
          SECRET_KEY: 'y'.repeat(32),
          CHAIN_TON_CONFIRMATIONS: '0',
        }),
      /CHAIN_TON_CONFIRMATIONS/,
    );
  });

  it("the request budget: CHAIN_<CHAIN>_RPS, else the provider's free plan with or without a key", () => {
    assert.equal(effectiveSettings(CHAINS.ton, null, {}).rps, 1);
    assert.equal(effectiveSettings(CHAINS.ton, null, { apiKey: 'k' }).rps, 10);
    assert.equal(effectiveSettings(CHAINS.tron, null, { apiKey: 'k' }).rps, 15);
    assert.equal(effectiveSettings(CHAINS.ton, null, { apiKey: 'k', rps: 25 }).rps, 25);
    assert.equal(effectiveSettings(CHAINS.ton, { ...none, rps: 3 }, { rps: 25 }).rps, 3);
    assert.equal(effectiveSettings(CHAINS.tron, null, {}).chainId, 0x2b6653dc);
    assert.equal(effectiveSettings(CHAINS.litecoin, null, {}).genesisHash, CHAINS.litecoin.genesisHash);
  });
});

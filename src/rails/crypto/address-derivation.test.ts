import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  deriveDepositAddress,
  InvalidExtendedKeyError,
  parseExtendedPublicKey,
} from './address-derivation.js';

const MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));

describe('BIP84 test vector (bitcoin/bips bip-0084)', () => {
  const zpub =
    'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
  it('derives the published receive addresses from the published account zpub', () => {
    const account = parseExtendedPublicKey('btc', zpub);
    assert.equal(deriveDepositAddress('btc', account, 0), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(deriveDepositAddress('btc', account, 1), 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });
  it('the account key of the mnemonic serialises to the published zpub', () => {
    const account = root.derive("m/84'/0'/0'");
    const xpub = account.publicExtendedKey;
    const fromX = parseExtendedPublicKey('btc', xpub);
    assert.equal(deriveDepositAddress('btc', fromX, 0), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  });
});

describe('EVM and TRON derivations of the same mnemonic', () => {
  it("m/44'/60'/0'/0/0 is the well-known 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 (EIP-55)", () => {
    const account = parseExtendedPublicKey('evm', root.derive("m/44'/60'/0'").publicExtendedKey);
    assert.equal(deriveDepositAddress('evm', account, 0), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });
  it("m/44'/195'/0'/0/0 is TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", () => {
    const account = parseExtendedPublicKey('tron', root.derive("m/44'/195'/0'").publicExtendedKey);
    assert.equal(deriveDepositAddress('tron', account, 0), 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });
  it('LTC BIP84 gives ltc1q addresses', () => {
    const account = parseExtendedPublicKey('ltc', root.derive("m/84'/2'/0'").publicExtendedKey);
    assert.match(deriveDepositAddress('ltc', account, 0), /^ltc1q[02-9ac-hj-np-z]{38}$/);
  });
  it('consecutive indexes give different addresses', () => {
    const account = parseExtendedPublicKey('evm', root.derive("m/44'/60'/0'").publicExtendedKey);
    assert.notEqual(deriveDepositAddress('evm', account, 0), deriveDepositAddress('evm', account, 1));
  });
});

describe('parseExtendedPublicKey refuses', () => {
  it('garbage, a private key and a key of another kind', () => {
    assert.throws(() => parseExtendedPublicKey('btc', 'xpub123'), InvalidExtendedKeyError);
    assert.throws(
      () => parseExtendedPublicKey('btc', root.derive("m/84'/0'/0'").privateExtendedKey),
      InvalidExtendedKeyError,
    );
    const zpub =
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    assert.throws(() => parseExtendedPublicKey('evm', zpub), InvalidExtendedKeyError);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  newDeviceSecrets,
  newPairingCode,
  openWithCode,
  pairingDigest,
  sealWithCode,
} from './device-secrets.js';

describe('device secrets and the pairing seal (docs/decisions.md section 24)', () => {
  it('three distinct random secrets; the bearer token is dev_-prefixed', () => {
    const a = newDeviceSecrets();
    const b = newDeviceSecrets();
    assert.match(a.token, /^dev_[0-9a-f]{64}$/);
    assert.notEqual(a.signingKey, b.signingKey);
    assert.equal(new Set([a.token, a.signingKey, a.nativeSecret]).size, 3);
  });
  it('the answer opens with its code only; the stored digest is not the code', () => {
    const { code, digest } = newPairingCode();
    assert.equal(digest, pairingDigest(code));
    assert.ok(!digest.includes(code));
    const sealed = sealWithCode(code, '{"k":"secret"}');
    assert.ok(!Buffer.from(sealed, 'base64').toString('utf8').includes('secret'));
    assert.equal(openWithCode(code, sealed), '{"k":"secret"}');
    assert.throws(() => openWithCode(newPairingCode().code, sealed));
  });
});

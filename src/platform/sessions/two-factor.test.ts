import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import { createSecretBox } from '../../lib/secrets.js';
import { createTwoFactor } from './two-factor.js';

const NOW = 1_790_000_000_000;
const box = createSecretBox('k'.repeat(64));
const twoFactor = createTwoFactor({ secretBox: box, clock: { now: () => NOW } });
const codeAt = (secret: string, ms: number) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: ms,
  });

describe('two-factor rules (docs/architecture.md "Session stack")', () => {
  it('a pending secret is kept: the sealed one opens to the same secret, a fresh one is made once', () => {
    const first = twoFactor.pending(null);
    assert.equal(first.fresh, true);
    const again = twoFactor.pending(first.sealed);
    assert.deepEqual([again.fresh, again.secret], [false, first.secret]);
  });

  it('a current code gives its step; a code one step either side is accepted (clock drift)', () => {
    const { secret, sealed } = twoFactor.pending(null);
    const step = Math.floor(NOW / 30_000);
    assert.equal(twoFactor.step(sealed, codeAt(secret, NOW)), step);
    assert.equal(twoFactor.step(sealed, ` ${codeAt(secret, NOW - 30_000)} `), step - 1);
    assert.equal(twoFactor.step(sealed, codeAt(secret, NOW - 120_000)), null);
  });

  it('a code is good once: a step not after the last accepted one is refused', () => {
    const { secret, sealed } = twoFactor.pending(null);
    const step = Math.floor(NOW / 30_000);
    assert.equal(twoFactor.freshStep(sealed, codeAt(secret, NOW), null), step);
    assert.equal(twoFactor.freshStep(sealed, codeAt(secret, NOW), step), null);
    assert.equal(twoFactor.freshStep(sealed, codeAt(secret, NOW + 30_000), step), step + 1);
  });

  it('malformed codes are refused', () => {
    const { sealed } = twoFactor.pending(null);
    for (const code of ['', '12345', '1234567', 'abcdef', '12 345'])
      assert.equal(twoFactor.step(sealed, code), null, code);
  });
});

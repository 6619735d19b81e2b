// Unit tests of request signing and webhook verification (docs/api.md Authentication).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign, verifyWebhook } from './index.js';
import { EMPTY_SIG, KEY, ORDER_BODY, ORDER_SIG, UTF8_BODY, UTF8_SIG } from './test-doubles.js';

describe('sign', () => {
  it('matches vectors computed with sha256sum', () => {
    assert.equal(sign(KEY, ''), EMPTY_SIG);
    assert.equal(sign(KEY), EMPTY_SIG);
    assert.equal(sign(KEY, ORDER_BODY), ORDER_SIG);
    assert.equal(sign(KEY, UTF8_BODY), UTF8_SIG);
    assert.equal(sign('abc', ''), '39674985912ef8498ad99f2df9524c7ad24a9785f1cab66cd50e0c1f82988e25');
  });
  it('a string and its UTF-8 bytes sign the same', () => {
    assert.equal(sign(KEY, new TextEncoder().encode(UTF8_BODY)), UTF8_SIG);
    assert.equal(sign(KEY, Buffer.from(ORDER_BODY)), ORDER_SIG);
  });
  it('is lowercase hex of 64 characters and depends on key and body', () => {
    assert.match(sign(KEY, 'x'), /^[0-9a-f]{64}$/);
    assert.notEqual(sign(KEY, 'x'), sign(KEY, 'y'));
    assert.notEqual(sign(KEY, 'x'), sign(`${KEY}!`, 'x'));
  });
});

describe('verifyWebhook', () => {
  const raw =
    '{"id":"lux1","order_id":"o-1","type":"sim","amount":"1000","currency":"RUB","status":"success"}';
  const good = sign(KEY, raw);

  it('true for the signature of the exact bytes, as a string or as bytes', () => {
    assert.equal(verifyWebhook(raw, good, KEY), true);
    assert.equal(verifyWebhook(Buffer.from(raw), good, KEY), true);
    assert.equal(verifyWebhook(new TextEncoder().encode(UTF8_BODY), UTF8_SIG, KEY), true);
  });
  it('accepts uppercase hex and surrounding whitespace of the header', () => {
    assert.equal(verifyWebhook(raw, good.toUpperCase(), KEY), true);
    assert.equal(verifyWebhook(raw, ` ${good} `, KEY), true);
  });
  it('false for a changed byte, a re-serialised body or another key', () => {
    assert.equal(verifyWebhook(raw.replace('1000', '1001'), good, KEY), false);
    assert.equal(verifyWebhook(JSON.stringify(JSON.parse(raw), null, 1), good, KEY), false);
    assert.equal(verifyWebhook(raw, good, 'other-key'), false);
    const flipped = (good[0] === '0' ? '1' : '0') + good.slice(1);
    assert.equal(verifyWebhook(raw, flipped, KEY), false);
  });
  it('false (never a throw) for a missing, empty or wrong-length header', () => {
    assert.equal(verifyWebhook(raw, undefined, KEY), false);
    assert.equal(verifyWebhook(raw, null, KEY), false);
    assert.equal(verifyWebhook(raw, '', KEY), false);
    assert.equal(verifyWebhook(raw, good.slice(0, 62), KEY), false);
    assert.equal(verifyWebhook(raw, good.slice(0, 63), KEY), false);
    assert.equal(verifyWebhook(raw, `${good}00`, KEY), false);
    assert.equal(verifyWebhook(raw, good.repeat(2), KEY), false);
  });
  it('false for the right signature followed by non-hex characters (Buffer.from would drop them)', () => {
    assert.equal(Buffer.from(`${good}zz`, 'hex').equals(Buffer.from(good, 'hex')), true);
    assert.equal(verifyWebhook(raw, `${good}zz`, KEY), false);
    assert.equal(verifyWebhook(raw, `${good.slice(0, 62)}zz`, KEY), false);
  });
});

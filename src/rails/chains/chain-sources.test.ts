import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tronCodec } from './chain-sources.js';

describe('TRON addresses on the JSON-RPC: base58check <-> 20-byte hex', () => {
  it('the USDT TRC20 contract maps to its known hex form', () => {
    assert.equal(
      tronCodec.toHex('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
      '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
    );
  });
  it('hex with 0x or the 41 prefix is taken as is (lower-cased)', () => {
    assert.equal(
      tronCodec.toHex('41A614F803B6FD780986A42C78EC9C7F77E6DED13C'),
      '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
    );
    assert.equal(
      tronCodec.toHex('0xA614F803B6FD780986A42C78EC9C7F77E6DED13C'),
      '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
    );
  });
  it('a bad checksum or a non-TRON prefix is refused', () => {
    assert.throws(() => tronCodec.toHex('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'));
    // A Bitcoin P2PKH address: valid base58check, prefix 0x00, not 0x41.
    assert.throws(() => tronCodec.toHex('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'), /not a TRON address/);
  });
});

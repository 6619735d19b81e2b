import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addressOfTopic,
  addressTopic,
  readQuantity,
  toAddress,
  toHash,
  toQuantity,
  uint256OfData,
} from './evm-hex.js';

describe('evm-hex: what is sent is canonical, what is read is strict', () => {
  it('quantities: 0x, lower case, no leading zeros (geth refuses 0x01 and unprefixed numbers)', () => {
    assert.equal(toQuantity(0), '0x0');
    assert.equal(toQuantity(1), '0x1');
    assert.equal(toQuantity(255), '0xff');
    assert.equal(toQuantity(2n ** 64n), '0x10000000000000000');
    assert.throws(() => toQuantity(-1), RangeError);
    assert.throws(() => toQuantity(1.5), RangeError);
  });

  it('hashes and addresses: the stored form (no 0x) and upper case become 0x + lower case; anything else throws', () => {
    const stored = 'AB'.repeat(32);
    assert.equal(toHash(stored), `0x${'ab'.repeat(32)}`);
    assert.equal(toHash(`0x${stored}`), `0x${'ab'.repeat(32)}`);
    assert.throws(() => toHash('ab'.repeat(31)), RangeError);
    assert.equal(
      toAddress('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
      '0xdac17f958d2ee523a2206206994597c13d831ec7',
    );
    assert.equal(
      addressTopic('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
      `0x${'0'.repeat(24)}dac17f958d2ee523a2206206994597c13d831ec7`,
    );
  });

  it('a topic is an address only with 12 zero upper bytes; data is one 32-byte word; 2^256-1 stays exact', () => {
    const a = 'dac17f958d2ee523a2206206994597c13d831ec7';
    assert.equal(addressOfTopic(`0x${'0'.repeat(24)}${a}`), `0x${a}`);
    assert.equal(addressOfTopic(`0x${'0'.repeat(22)}01${a}`), null);
    assert.equal(addressOfTopic(`0x${a}`), null);
    assert.equal(uint256OfData(`0x${'f'.repeat(64)}`), 2n ** 256n - 1n);
    assert.equal(uint256OfData(`0x${'0'.repeat(62)}`), null);
    assert.equal(uint256OfData(`0x${'0'.repeat(128)}`), null);
  });

  it('a quantity the node answered must be 0x hex', () => {
    assert.equal(readQuantity('eth_blockNumber', 'block number', '0x10'), 16n);
    assert.throws(() => readQuantity('eth_blockNumber', 'block number', '16'), /malformed block number/);
    assert.throws(() => readQuantity('eth_blockNumber', 'block number', 16), /malformed/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskDigits, maskLogRecord } from './log-mask.js';

describe('log masking (card numbers and phones masked in logs)', () => {
  it('masks cards and phones, keeps the last 4 digits', () => {
    assert.equal(maskDigits('card 2200123412341234 ok'), 'card ************1234 ok');
    assert.equal(maskDigits('phone +79001234567'), 'phone *******4567');
    assert.equal(maskDigits('2200 1234 5678 9010'), '************9010');
    assert.equal(maskDigits('call 8-900-123-45-67'), 'call *******4567');
  });
  it('leaves ids, amounts and dates alone', () => {
    for (const s of [
      'lux01993328-a828-7581-b3a9-e712a6a0e88c',
      'amount 1000000',
      '2026-11-20T23:38:18.892Z',
      'req-123456',
    ]) {
      assert.equal(maskDigits(s), s);
    }
  });
  it('walks nested records', () => {
    assert.deepEqual(maskLogRecord({ a: { b: ['79001234567'] }, n: 5 }), { a: { b: ['*******4567'] }, n: 5 });
  });
  it('redacts provider URLs in every string of a record', () => {
    assert.deepEqual(
      maskLogRecord({ chain: 'tron', err: { message: 'GET https://u:p@api.example/jsonrpc?k=1 failed' } }),
      { chain: 'tron', err: { message: 'GET https://api.example/jsonrpc?*** failed' } },
    );
  });
});

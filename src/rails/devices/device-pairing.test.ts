import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedEndings, type PairingRequisite } from './device-pairing.js';

const requisite = (id: string, asks: boolean): PairingRequisite => ({
  id,
  kind: asks ? 'phone' : 'card',
  bank: 'sber',
  address: '****1234',
  masks: asks ? [] : ['1234'],
  asks_ending: asks,
});

describe('acceptedEndings: the endings a holder gives at pairing (docs/decisions.md "The pairing page")', () => {
  const asked = [requisite('a', true), requisite('b', false)];
  it('keeps four digits for a requisite the page asked about, trimmed; empty means not given', () => {
    assert.deepEqual(acceptedEndings(asked, { a: ' 4821 ' }), [{ id: 'a', mask: '4821' }]);
    assert.deepEqual(acceptedEndings(asked, { a: '' }), []);
    assert.deepEqual(acceptedEndings(asked, {}), []);
  });
  it('refuses other lengths, non-digits and requisites not asked about, naming the field', () => {
    for (const [endings, field] of [
      [{ a: '123' }, 'mask_a'],
      [{ a: '12345' }, 'mask_a'],
      [{ a: '١٢٣٤' }, 'mask_a'],
      [{ a: '12a4' }, 'mask_a'],
      [{ b: '1234' }, 'mask_b'],
      [{ c: '1234' }, 'mask_c'],
    ] as const) {
      assert.throws(
        () => acceptedEndings(asked, endings),
        (err: { code?: string; details?: Array<{ field: string }> }) =>
          err.code === 'VALIDATION_ERROR' && err.details?.[0]?.field === field,
        JSON.stringify(endings),
      );
    }
  });
});

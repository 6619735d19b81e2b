import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { creditShowsEnding } from './bank-formats.js';

describe('creditShowsEnding: which banks a holder is asked an ending for at pairing', () => {
  it('is true for banks whose credit texts show a card or account ending', () => {
    for (const code of ['sber', 'tbank', 'vtb', 'alfa', 'mts'])
      assert.equal(creditShowsEnding(code), true, code);
  });
  it('is false for a bank whose credit texts show none, an unknown code and no code', () => {
    for (const code of ['yandex', 'nobank', null, undefined, ''])
      assert.equal(creditShowsEnding(code), false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOME_TEXTS } from './home-texts.js';

describe('home page language', () => {
  it('both catalogues have the same keys', () => {
    assert.deepEqual(Object.keys(HOME_TEXTS.ru).sort(), Object.keys(HOME_TEXTS.en).sort());
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAIRING_TEXTS } from './pairing-texts.js';

describe('pairing page catalogues', () => {
  it('Russian and English have the same keys, none empty, the same {holes}', () => {
    assert.deepEqual(Object.keys(PAIRING_TEXTS.ru).sort(), Object.keys(PAIRING_TEXTS.en).sort());
    for (const [key, ru] of Object.entries(PAIRING_TEXTS.ru)) {
      const en = PAIRING_TEXTS.en[key as keyof typeof PAIRING_TEXTS.en];
      assert.ok(ru.trim() && en.trim(), key);
      const holes = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
      assert.deepEqual(holes(ru), holes(en), key);
    }
  });
});

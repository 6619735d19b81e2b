import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOLDER_TEXTS } from './holder-texts.js';

describe('holder page catalogues', () => {
  it('Russian and English have the same keys, none empty, the same {holes}', () => {
    assert.deepEqual(Object.keys(HOLDER_TEXTS.ru).sort(), Object.keys(HOLDER_TEXTS.en).sort());
    for (const [key, ru] of Object.entries(HOLDER_TEXTS.ru)) {
      const en = HOLDER_TEXTS.en[key as keyof typeof HOLDER_TEXTS.en];
      assert.ok(ru.trim() && en.trim(), key);
      const holes = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
      assert.deepEqual(holes(ru), holes(en), key);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorableText, unstorableTextAt } from './storable-text.js';

describe('storable text', () => {
  it('refuses U+0000 and lone surrogates, takes pairs and every other character', () => {
    for (const bad of ['\u0000', 'a\u0000', '\ud800', 'x\udbffy', '\udc00', '\udc00\ud800', 'ok\ud83d'])
      assert.equal(isStorableText(bad), false, JSON.stringify(bad));
    for (const good of ['', 'plain', 'оплата', '😀', '\ud83d\ude00x', '\u0001\u001f\u007f', '\ufffd\uffff'])
      assert.equal(isStorableText(good), true, JSON.stringify(good));
  });

  it('points at the first unstorable string of a parsed body, keys included', () => {
    assert.equal(unstorableTextAt({ a: 'ok', b: [1, 'x', { c: 'y\u0000' }] }), '/b/2/c');
    assert.equal(unstorableTextAt({ 'a/b~': '\ud800' }), '/a~1b~0');
    assert.equal(unstorableTextAt({ ['k\u0000']: 1 }), '/k\\u0000');
    assert.equal(unstorableTextAt('\udfff'), '');
    assert.equal(unstorableTextAt({ a: 'ok', b: [null, true, 1.5, { c: '😀' }] }), undefined);
    assert.equal(unstorableTextAt(undefined), undefined);
  });

  it('walks only the fields a schema declares, and extra fields only when it gives them a schema', () => {
    const schema = { properties: { a: {}, list: { items: { properties: { b: {} } } } } };
    assert.equal(unstorableTextAt({ ignored: '\u0000', ['k\u0000']: 1, a: 'ok' }, schema), undefined);
    assert.equal(unstorableTextAt({ a: { ['k\u0000']: 1 } }, schema), '/a/k\\u0000');
    assert.equal(
      unstorableTextAt({ list: [{ b: 'ok', c: '\u0000' }, { b: '\ud800' }] }, schema),
      '/list/1/b',
    );
    const typed = { properties: {}, additionalProperties: { properties: {} } };
    assert.equal(unstorableTextAt({ x: 'ok', y: '\u0000' }, typed), '/y');
  });
});

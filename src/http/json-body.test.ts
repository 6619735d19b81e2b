import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepth, MAX_JSON_DEPTH } from './json-body.js';

describe('jsonDepth (bodies deeper than MAX_JSON_DEPTH are refused before parsing)', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    assert.equal(jsonDepth('{}'), 1);
    assert.equal(jsonDepth('{"a":[1,{"b":[]}]}'), 4);
    assert.equal(jsonDepth('{"a":"[[[[{{{{"}'), 1);
    assert.equal(jsonDepth('{"a":"\\"[[["}'), 1);
    assert.equal(jsonDepth('"x"'), 0);
  });
  it('stops counting just past the limit', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    assert.equal(jsonDepth(deep), MAX_JSON_DEPTH + 1);
    assert.equal(jsonDepth(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`), MAX_JSON_DEPTH);
  });
});

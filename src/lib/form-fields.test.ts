import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastValues, parseFormBody } from './form-fields.js';

describe('form fields: one string per name', () => {
  it('a repeated name keeps its last value; a __proto__ name is an own field', () => {
    const body = parseFormBody('a=1&a=2&allow=off&allow=on&__proto__=x&empty=');
    assert.deepEqual([body.a, body.allow, body.empty], ['2', 'on', '']);
    assert.ok(Object.hasOwn(body, '__proto__'));
    assert.equal(Object.getPrototypeOf(body), Object.prototype);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('a parsed query becomes strings, the last of a list, undefined left out', () => {
    assert.deepEqual(lastValues({ q: ['a', 'b'], page: 2, gone: undefined }), { q: 'b', page: '2' });
    assert.deepEqual([lastValues(null), lastValues('x')], [{}, {}]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { refusalText, wantsJson } from './pairing-page.js';
import { PAIRING_TEXTS } from './pairing-texts.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;

describe('wantsJson: the pairing link answers JSON only to a client that ranks it first', () => {
  const cases: Array<[Record<string, string>, boolean]> = [
    [{ accept: 'application/json' }, true],
    [{ accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, false],
    [{ accept: '*/*' }, false],
    [{}, false],
    [{ accept: 'text/html;q=0.5, application/json' }, true],
    [{ accept: 'application/json;q=0.4, text/html' }, false],
    [{ accept: 'application/json;q=x' }, false],
    [{ 'content-type': 'application/json; charset=utf-8', accept: 'text/html' }, true],
    [{ 'content-type': 'application/x-www-form-urlencoded', accept: '*/*' }, false],
  ];
  for (const [headers, expected] of cases)
    it(`${JSON.stringify(headers)} -> ${expected}`, () =>
      assert.equal(wantsJson(request(headers)), expected));
});

describe('refusalText: every refusal has words and says whether the link is still worth a try', () => {
  it('used, expired and unknown links offer no way back; a bad ending and a throttle do', () => {
    const t = PAIRING_TEXTS.en;
    assert.equal(refusalText('PAIRING_LINK_USED', 409, t).title, t.usedTitle);
    assert.equal(refusalText('PAIRING_LINK_EXPIRED', 410, t).back, false);
    assert.equal(refusalText('NOT_FOUND', 404, t).back, false);
    assert.equal(refusalText('VALIDATION_ERROR', 400, t).back, true);
    assert.equal(refusalText('TOO_MANY_REQUESTS', 429, t).title, t.tooManyTitle);
    assert.equal(refusalText('INTERNAL_ERROR', 500, t).title, t.errorTitle);
  });
});

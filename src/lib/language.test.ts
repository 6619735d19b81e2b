import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseLang, fill, type Lang } from './language.js';

describe('page language: one rule for every surface', () => {
  // [?lang, cookie, Accept-Language, expected] with the payers' fallback (Russian).
  const cases: Array<[string | undefined, string | undefined, string | undefined, Lang]> = [
    [undefined, undefined, undefined, 'ru'],
    [undefined, undefined, '', 'ru'],
    ['en', undefined, undefined, 'en'],
    ['ru', undefined, undefined, 'ru'],
    ['en', undefined, 'ru-RU,ru;q=0.9', 'en'],
    ['ru', undefined, 'en-US,en;q=0.9', 'ru'],
    [undefined, undefined, 'en-US', 'en'],
    [undefined, undefined, 'en', 'en'],
    [undefined, undefined, 'EN-GB', 'en'],
    [undefined, undefined, 'en-US,en;q=0.9,ru;q=0.8', 'en'],
    [undefined, undefined, 'ru-RU,ru;q=0.9,en-US;q=0.8', 'ru'],
    [undefined, undefined, 'de-DE,de;q=0.9,en;q=0.8', 'en'],
    [undefined, undefined, 'de-DE,ru;q=0.5,en;q=0.8', 'en'],
    [undefined, undefined, 'en;q=0,ru;q=0.1', 'ru'],
    [undefined, undefined, 'de-DE, fr;q=0.5', 'ru'],
    [undefined, undefined, '*', 'ru'],
    // An unknown ?lang is ignored: the remembered choice, then Accept-Language decides.
    ['de', undefined, 'en-US', 'en'],
    ['de', undefined, undefined, 'ru'],
    ['', undefined, 'en', 'en'],
    // The remembered choice beats the browser; ?lang beats the remembered choice.
    [undefined, 'en', 'ru-RU', 'en'],
    [undefined, 'ru', 'en-US', 'ru'],
    ['ru', 'en', 'en-US', 'ru'],
    [undefined, 'xx', 'en-US', 'en'],
  ];
  for (const [query, cookie, accept, expected] of cases) {
    it(`lang=${JSON.stringify(query)} cookie=${JSON.stringify(cookie)} Accept-Language=${JSON.stringify(accept)} -> ${expected}`, () => {
      assert.equal(chooseLang(query, cookie, accept, 'ru'), expected);
    });
  }

  it("the console's English fallback applies only when nothing else decides", () => {
    assert.equal(chooseLang(undefined, undefined, 'fr-FR', 'en'), 'en');
    assert.equal(chooseLang(undefined, undefined, undefined, 'en'), 'en');
    assert.equal(chooseLang('de', 'xx', 'de-DE, ru;q=0.8', 'en'), 'ru');
    assert.equal(chooseLang(undefined, 'ru', 'en-GB', 'en'), 'ru');
  });

  it('a hostile header or value never throws and never picks another language', () => {
    for (const accept of [';;;', 'q=1', 'en;q=abc', 'x'.repeat(10_000), '\u0000', ',,,,']) {
      assert.ok(['ru', 'en'].includes(chooseLang(undefined, undefined, accept, 'ru')), accept.slice(0, 20));
    }
    assert.equal(chooseLang(['en'], { en: 1 }, 42, 'ru'), 'ru');
  });

  it('fill leaves unknown holes and takes no prototype keys', () => {
    assert.equal(fill('{a} and {b} {constructor}', { a: 'x' }), 'x and {b} {constructor}');
  });
});

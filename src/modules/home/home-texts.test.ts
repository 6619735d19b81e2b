import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOME_TEXTS, homeLang } from './home-texts.js';

describe('home page language', () => {
  it('?lang wins over the browser', () => {
    assert.equal(homeLang('en', 'ru-RU,ru;q=0.9'), 'en');
    assert.equal(homeLang('ru', 'en-US'), 'ru');
  });
  it('Accept-Language by weight, Russian when neither is asked', () => {
    assert.equal(homeLang(undefined, 'en-GB,en;q=0.9'), 'en');
    assert.equal(homeLang(undefined, 'de-DE,ru;q=0.5,en;q=0.8'), 'en');
    assert.equal(homeLang(undefined, 'en;q=0,ru;q=0.1'), 'ru');
    assert.equal(homeLang(undefined, 'fr-FR'), 'ru');
    assert.equal(homeLang(undefined, undefined), 'ru');
  });
  it('both catalogues have the same keys', () => {
    assert.deepEqual(Object.keys(HOME_TEXTS.ru).sort(), Object.keys(HOME_TEXTS.en).sort());
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePattern, readByPattern } from './rule-checks.js';
import { deriveShape } from './rule-shape.js';

// docs/decisions.md "Rules learned from the review queue": a message's shape with holes.
const shape = (text: string, amount: string, more: { title?: string; mask?: string } = {}) => {
  const derived = deriveShape({ text, amount, ...more });
  assert.ok(derived, `no shape for ${text}`);
  return compilePattern(derived.pattern);
};

describe('the shape of a message as a learned rule', () => {
  it('makes the amount, the ending and the balance holes that read them in a new text of the shape', () => {
    const re = shape('Karta *4821 popolnenie 1 500,00 RUB. Dostupno 12 000.50 RUB. 25.11 10:15', '1500');
    assert.deepEqual(readByPattern(re, 'Karta *7315 popolnenie 980 RUB. Dostupno 3 400 RUB. 26.11 09:03'), {
      amount: '980',
      mask: '7315',
    });
    assert.match(re.source, /\(\?<amount>/);
    assert.match(re.source, /\(\?<mask>/);
    assert.match(re.source, /\(\?<balance>/);
  });

  it("makes the payer's name a hole", () => {
    const re = shape('Зачисление 5000р от Анна К. по СБП', '5000');
    assert.match(re.source, /\(\?<payer>/);
    assert.deepEqual(readByPattern(re, 'Зачисление 700 ₽ от Пётр Иванович С. по СБП'), { amount: '700' });
  });

  it('reads the amount an operator assigned even when it is written with decimals or thousands', () => {
    const re = shape('Priход 12 500.00 р na schet 1234', '12500');
    assert.deepEqual(readByPattern(re, 'Priход 7.50 р na schet 9876'), { amount: '7.50', mask: '9876' });
  });

  it('keeps the words: a text of another shape is not read', () => {
    const re = shape('Karta *4821 popolnenie 1500 RUB', '1500');
    assert.equal(readByPattern(re, 'Karta *4821 spisanie 1500 RUB'), undefined);
    assert.equal(readByPattern(re, 'Karta *4821 popolnenie 1500 RUB. Spisanie 100 RUB'), undefined);
  });

  it("reads a push's title before its text, as the reader does", () => {
    const re = shape('+ 2 000 ₽ от Иван И.', '2000', { title: 'Пополнение' });
    assert.deepEqual(readByPattern(re, 'Пополнение + 300 ₽ от Мария П.'), { amount: '300' });
  });

  it('answers nothing for a text that does not show the amount', () => {
    assert.equal(deriveShape({ text: 'Karta *4821 popolnenie 1500 RUB', amount: '1600' }), undefined);
  });

  it('escapes the words, so characters of regular expressions in a text are literal', () => {
    const re = shape('(Bank) [info]: +1500 RUB? *4821', '1500');
    assert.deepEqual(readByPattern(re, '(Bank) [info]: +20 RUB? *1111'), { amount: '20', mask: '1111' });
    assert.equal(readByPattern(re, 'Bank info: +20 RUB *1111'), undefined);
  });
});

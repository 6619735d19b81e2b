import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../lib/errors.js';
import { assertNarrow, assertReadsNoNonCredit, compilePattern } from './rule-checks.js';

// docs/decisions.md "Rules learned from the review queue": the checks before a rule is kept or switched on.
const codeOf = (fn: () => void) => {
  try {
    fn();
    return 'passed';
  } catch (err) {
    assert.ok(err instanceof AppError);
    return `${err.code} ${err.details?.map((d) => `${d.field}: ${d.problem}`).join('; ')}`;
  }
};
const AMOUNT = String.raw`(?<amount>\d+(?:[.,]\d{1,2})?)`;

describe('the checks of a learned rule', () => {
  it('refuses a pattern that is no regular expression, has another group or no amount hole', () => {
    assert.match(
      codeOf(() => compilePattern('(')),
      /VALIDATION_ERROR pattern: is not a valid/,
    );
    assert.match(
      codeOf(() => compilePattern('(?<sum>\\d+)')),
      /group named sum/,
    );
    assert.match(
      codeOf(() => compilePattern('Zachislenie \\d+')),
      /no \(\?<amount>/,
    );
    assert.match(
      codeOf(() => compilePattern('x'.repeat(2001))),
      /1 to 2000 characters/,
    );
    assert.equal(
      codeOf(() => compilePattern(`^Karta (?<mask>\\d{4}) ${AMOUNT}₽$`)),
      'passed',
    );
  });

  it('refuses a pattern that repeats a repetition, the shape that can take exponential time', () => {
    for (const bad of [
      `^(?:a+)+${AMOUNT}`,
      `^(a*b)*${AMOUNT}`,
      `^(?:(?:x)+y{2,})*${AMOUNT}`,
      `.*a.*b.*c.*d ${AMOUNT}`,
    ])
      assert.match(
        codeOf(() => compilePattern(bad)),
        /repeats a repetition/,
        bad,
      );
    for (const good of [`^(?:Karta )?${AMOUNT}(?:[.,]\\d+)? ₽ (?<payer>.+?)$`, `^[(+]+ ${AMOUNT}`])
      assert.equal(
        codeOf(() => compilePattern(good)),
        'passed',
        good,
      );
  });

  it('refuses a pattern that keeps too few words, reads any text, or reads much of the corpus', () => {
    assert.match(
      codeOf(() => assertNarrow(new RegExp(`${AMOUNT}₽`, 'iu'), [])),
      /RULE_TOO_BROAD pattern: keeps too few/,
    );
    assert.match(
      codeOf(() => assertNarrow(new RegExp(`(?:Karta|Schet)?.*?${AMOUNT}`, 'iu'), [])),
      /reads any text/,
    );
    const corpus = Array.from({ length: 100 }, (_, i) => `Karta popolnena ${i} р`);
    assert.match(
      codeOf(() => assertNarrow(new RegExp(`^Karta popolnena ${AMOUNT}₽$`, 'iu'), corpus)),
      /reads 100 of the corpus's 100 texts/,
    );
    assert.equal(
      codeOf(() => assertNarrow(new RegExp(`^Karta popolnena ${AMOUNT}₽$`, 'iu'), corpus.slice(0, 3))),
      'passed',
    );
  });

  it('names the first stored non-credit the pattern reads, by its text or its title and text', () => {
    const re = new RegExp(`^Perevod ${AMOUNT}₽ uspeshno$`, 'iu');
    const texts = [
      { name: 'corpus x-001 (otp)', text: 'Kod 1234' },
      { name: 'corpus x-002 (debit)', text: '500 р uspeshno', title: 'Perevod' },
    ];
    assert.equal(
      codeOf(() => assertReadsNoNonCredit(re, texts)),
      'RULE_READS_NON_CREDIT corpus x-002 (debit): reads "500 р uspeshno" as a credit',
    );
    assert.equal(
      codeOf(() => assertReadsNoNonCredit(re, texts.slice(0, 1))),
      'passed',
    );
  });
});

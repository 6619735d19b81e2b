import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_FORMATS } from './bank-formats.js';
import { parseBankMessage } from './parse-message.js';

// Every rule's own example texts (synthetic: invented names and amounts) parse to the rule's kind
// and exactly the fields the example names (docs/decisions.md section 24: rules are data with their examples).
const REQUIRED = [
  'sber',
  'tbank',
  'vtb',
  'alfa',
  'ozon',
  'raiffeisen',
  'gasprom',
  'sovkom',
  'pochta',
  'mts',
  'yandex',
];

describe('bank rules: each example parses as its rule says', () => {
  it('covers the banks of the issue, each with a credit, a debit, a block and a one-time-code rule', () => {
    assert.deepEqual(
      BANK_FORMATS.map((f) => f.code),
      REQUIRED,
    );
    for (const format of BANK_FORMATS) {
      const kinds = new Set(format.rules.map((r) => r.kind));
      for (const kind of ['credit', 'debit', 'block', 'otp'] as const)
        assert.ok(kinds.has(kind), `${format.code} ${kind}`);
      assert.ok(format.senders.length > 0 && format.packages.length > 0, `${format.code} sources`);
      assert.equal(
        new Set(format.rules.map((r) => r.id)).size,
        format.rules.length,
        `${format.code} rule ids`,
      );
    }
  });

  for (const format of BANK_FORMATS) {
    for (const rule of format.rules) {
      it(`${rule.id}: ${rule.examples.length} example(s)`, () => {
        assert.ok(rule.examples.length > 0, 'a rule carries at least one example');
        for (const example of rule.examples) {
          for (const channel of rule.channels) {
            const parsed = parseBankMessage(format, { channel, text: example.text });
            assert.equal(parsed.status, 'parsed', `${channel}: ${example.text} -> ${JSON.stringify(parsed)}`);
            if (parsed.status !== 'parsed') continue;
            assert.equal(parsed.kind, rule.kind, example.text);
            assert.equal(parsed.ruleId, rule.id, example.text);
            assert.deepEqual(parsed.fields, example.fields, example.text);
          }
        }
      });
    }
  }
});

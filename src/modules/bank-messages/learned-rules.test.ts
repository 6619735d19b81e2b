import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BankFormat } from './bank-rule.js';
import { parseBankMessage } from './parse-message.js';

// docs/decisions.md "Rules learned from the review queue": a learned rule reads only credits, after
// the bank's own rules and never over them; when unsure, never credit.
const bank = (pattern: string): BankFormat => ({
  code: 'testbank',
  name: 'Test',
  senders: ['TEST'],
  packages: [],
  rules: [],
  learned: [{ id: 'r1', channel: 'sms', pattern: new RegExp(pattern, 'iu') }],
});
const sms = (text: string) => ({ channel: 'sms' as const, text });

describe('learned rules in the reader', () => {
  const format = bank(String.raw`^Karta (?<mask>\d{4}) summa (?<amount>\d+(?:[.,]\d{1,2})?)₽ OK$`);

  it('reads a text of the learned shape that the bank rules leave without direction as a credit of its holes', () => {
    assert.equal(
      parseBankMessage({ ...format, learned: [] }, sms('Karta 4821 summa 1500 р OK')).status,
      'ambiguous',
    );
    const read = parseBankMessage(format, sms('Karta 4821 summa 1500 р OK'));
    assert.deepEqual(read, {
      status: 'parsed',
      kind: 'credit',
      ruleId: 'learned.r1',
      fields: { amount: '1500', mask: '4821', currency: 'RUB' },
    });
  });

  it('never reads a text with words of money going out, a block or a code', () => {
    const wide = bank(String.raw`^(?:.*?)(?<amount>\d+)₽.*$`);
    for (const text of ['Списание 1500 р карта 4821', 'Покупка 1500 р', 'Код 1234 для перевода 1500 р']) {
      const read = parseBankMessage(wide, sms(text));
      assert.ok(!(read.status === 'parsed' && read.kind === 'credit'), `${text}: ${JSON.stringify(read)}`);
    }
  });

  it("never overrides the bank's own reading", () => {
    const own: BankFormat = {
      ...format,
      rules: [
        {
          id: 'testbank.debit',
          kind: 'debit',
          channels: ['sms'],
          pattern: /^Karta (?<mask>\d{4}) summa (?<amount>\d+)₽ OK$/iu,
          examples: [],
        },
      ],
    };
    const read = parseBankMessage(own, sms('Karta 4821 summa 1500 р OK'));
    assert.equal(read.status === 'parsed' && read.kind, 'debit');
  });

  it('reads only on the channel of its example, and not when two learned rules read different amounts', () => {
    assert.equal(
      parseBankMessage(format, { channel: 'push', text: 'Karta 4821 summa 1500 р OK' }).status,
      'ambiguous',
    );
    const two: BankFormat = {
      ...format,
      learned: [
        { id: 'a', channel: 'sms', pattern: /^X (?<amount>\d+)₽ Y \d+₽$/iu },
        { id: 'b', channel: 'sms', pattern: /^X \d+₽ Y (?<amount>\d+)₽$/iu },
      ],
    };
    const read = parseBankMessage(two, sms('X 100 р Y 200 р'));
    assert.notEqual(read.status, 'parsed');
  });
});

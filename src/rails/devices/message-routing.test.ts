import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_FORMATS } from '../../modules/bank-messages/index.js';
import { routeMessage } from './message-routing.js';

const sberCard = { id: 'r-sber', bankCode: 'sber', masks: ['1234'] };
const sberCard2 = { id: 'r-sber2', bankCode: 'sber', masks: ['5678'] };
const vtb = { id: 'r-vtb', bankCode: 'vtb', masks: ['4321'] };
const CREDIT = 'СЧЁТ1234 10:15 Перевод 1501р от Анна К. Баланс: 2500р';

describe('routeMessage: which bank and requisite a message is about (docs/decisions.md section 24)', () => {
  it("a bank's sender: its rules read it; the requisite by its mask", () => {
    const r = routeMessage(BANK_FORMATS, [sberCard, sberCard2, vtb], {
      channel: 'sms',
      source: '900',
      text: CREDIT,
    });
    assert.equal(r.bank?.code, 'sber');
    assert.equal(r.sourceAllowed, true);
    assert.deepEqual(
      r.requisites.map((x) => x.id),
      ['r-sber'],
    );
    assert.equal(r.maskUnknown, false);
  });
  it('a mask none of the bank requisites has', () => {
    const r = routeMessage(BANK_FORMATS, [sberCard2], { channel: 'sms', source: '900', text: CREDIT });
    assert.deepEqual(r.requisites, []);
    assert.equal(r.maskUnknown, true);
  });
  it('an unknown sender with a bank-like credit is read by the bound banks, never allowed', () => {
    const r = routeMessage(BANK_FORMATS, [sberCard], {
      channel: 'sms',
      source: '+79990001122',
      text: CREDIT,
    });
    assert.equal(r.bank?.code, 'sber');
    assert.equal(r.sourceAllowed, false);
  });
  it("a private message from an unknown sender is no bank's", () => {
    const r = routeMessage(BANK_FORMATS, [sberCard], {
      channel: 'sms',
      source: '+79990001122',
      text: 'Привет, 1500 завтра',
    });
    assert.equal(r.bank, undefined);
    assert.equal(r.parsed.status, 'unparsed');
  });
  it("a bank's sender with an amount but no direction is that bank's, in doubt (for review)", () => {
    const r = routeMessage(BANK_FORMATS, [sberCard], {
      channel: 'sms',
      source: '900',
      text: 'Совсем новый формат 1501р',
    });
    assert.equal(r.bank?.code, 'sber');
    assert.equal(r.parsed.status === 'ambiguous' && r.parsed.doubt, 'no_direction');
  });
  it('an unknown sender with an ad or a code is a private message, not kept', () => {
    for (const text of ['Скидка 50% на всё до 1500р!', 'Ваш код 4411']) {
      const r = routeMessage(BANK_FORMATS, [sberCard], { channel: 'sms', source: 'SHOP', text });
      assert.equal(r.bank, undefined, text);
    }
  });
});

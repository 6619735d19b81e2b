import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHANNEL_DOUBT_SECONDS,
  nearKeys,
  type ReadCredit,
  sameTransfer,
  transportKey,
} from './event-dedup.js';

const AT = new Date('2026-11-24T07:15:07.250Z');
const event = {
  deviceId: 'dev-1',
  channel: 'sms' as const,
  source: '900',
  receivedAt: AT,
  text: 'СЧЁТ1234 10:15 Перевод 1501р',
};

describe('transportKey (docs/decisions.md section 24: transport de-duplication)', () => {
  it('the same message retried is one key, whatever the app calls it', () => {
    assert.equal(transportKey(event), transportKey({ ...event }));
    assert.equal(transportKey(event), transportKey({ ...event, receivedAt: new Date(AT.getTime() + 500) }));
    assert.equal(
      transportKey(event),
      transportKey({ ...event, source: ' 900 ', text: 'СЧЁТ1234\u00A010:15 Перевод 1501 р' }),
    );
  });

  it('another device, sender, minute, channel or text is another key', () => {
    const key = transportKey(event);
    assert.notEqual(key, transportKey({ ...event, deviceId: 'dev-2' }));
    assert.notEqual(key, transportKey({ ...event, source: '9000' }));
    assert.notEqual(key, transportKey({ ...event, receivedAt: new Date(AT.getTime() + 60_000) }));
    assert.notEqual(key, transportKey({ ...event, text: 'СЧЁТ1234 10:15 Перевод 1502р' }));
    assert.notEqual(key, transportKey({ ...event, channel: 'push' }));
  });

  it('two apps a second apart are one message, across a minute boundary too', () => {
    const atEnd = { ...event, receivedAt: new Date('2026-11-24T07:15:59.600Z') };
    const next = { ...atEnd, receivedAt: new Date('2026-11-24T07:16:00.700Z') };
    assert.notEqual(transportKey(atEnd), transportKey(next));
    assert.ok(nearKeys(next).includes(transportKey(atEnd)));
    assert.ok(nearKeys(atEnd).includes(transportKey(next)));
  });
});

describe('sameTransfer (channel de-duplication)', () => {
  const sms: ReadCredit = {
    channel: 'sms',
    requisiteId: 'r1',
    receivedAt: AT,
    fields: { amount: '1501', balance: '2500', payer: 'АННА К.' },
  };
  const push: ReadCredit = {
    channel: 'push',
    requisiteId: 'r1',
    receivedAt: new Date(AT.getTime() + 30_000),
    fields: { amount: '1501.00', payer: 'Анна К.' },
  };

  it('an SMS and a push of the same amount on the same requisite within 120 s are one transfer', () => {
    assert.equal(sameTransfer(sms, push), true);
    assert.equal(sameTransfer(push, sms), true);
  });

  it('two messages of one channel never are: they may be two real payments', () => {
    assert.equal(sameTransfer(sms, { ...sms, receivedAt: new Date(AT.getTime() + 1000) }), false);
    assert.equal(sameTransfer(push, { ...push }), false);
  });

  it('another amount, requisite, payer or balance, or more than 120 s apart, is another transfer', () => {
    assert.equal(sameTransfer(sms, { ...push, fields: { ...push.fields, amount: '1502' } }), false);
    assert.equal(sameTransfer(sms, { ...push, requisiteId: 'r2' }), false);
    assert.equal(sameTransfer(sms, { ...push, fields: { ...push.fields, payer: 'Пётр С.' } }), false);
    assert.equal(sameTransfer(sms, { ...push, fields: { ...push.fields, balance: '9999' } }), false);
    assert.equal(sameTransfer(sms, { ...push, receivedAt: new Date(AT.getTime() + 121_000) }), false);
  });

  it('past 120 s and within the 5-minute text tolerance, the other channel may still be the same transfer', () => {
    const later = { ...push, receivedAt: new Date(AT.getTime() + 150_000) };
    assert.equal(CHANNEL_DOUBT_SECONDS, 300);
    assert.equal(sameTransfer(sms, later, CHANNEL_DOUBT_SECONDS), true);
    assert.equal(
      sameTransfer(sms, { ...later, receivedAt: new Date(AT.getTime() + 301_000) }, CHANNEL_DOUBT_SECONDS),
      false,
    );
    assert.equal(sameTransfer(sms, { ...later, channel: 'sms' }, CHANNEL_DOUBT_SECONDS), false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSmsForwarderBody, SMS_FORWARDER_TEMPLATE } from './sms-forwarder-body.js';
import { EnvelopeError } from './sms-gateway-envelope.js';

/** The template filled as SmsForwarder's WebhookUtils fills it (Gson escaping of text and title). */
const fill = (from: string, text: string, title: string, time: string) =>
  SMS_FORWARDER_TEMPLATE.replace('[from]', from)
    .replace('[org_content]', JSON.stringify(text).slice(1, -1).replace(/=/g, '\\u003d'))
    .replace('[title]', JSON.stringify(title).slice(1, -1))
    .replace(/\[receive_time(:(.*?))?]/, time);

describe('readSmsForwarderBody: our template as SmsForwarder sends it (docs/decisions.md section 24)', () => {
  it('the template uses the raw text and a receive time with its offset', () => {
    assert.match(SMS_FORWARDER_TEMPLATE, /\[org_content]/);
    assert.doesNotMatch(SMS_FORWARDER_TEMPLATE, /\[content]/);
    assert.match(SMS_FORWARDER_TEMPLATE, /\[receive_time:yyyy-MM-dd'T'HH:mm:ss\.SSSXXX]/);
    assert.doesNotThrow(() =>
      JSON.parse(fill('900', 'a "quoted"\ntext', 'SIM1', '2026-11-24T10:15:07.000+03:00')),
    );
  });
  it('an SMS: sender, raw text (quotes, new lines, = kept), the SIM title dropped', () => {
    const m = readSmsForwarderBody(
      JSON.parse(
        fill('900', 'СЧЁТ1234 10:15\nзачисление 1 500р "x=1"', 'SIM1_MTS', '2026-11-24T10:15:07.000+03:00'),
      ),
    );
    assert.deepEqual(m, {
      channel: 'sms',
      source: '900',
      text: 'СЧЁТ1234 10:15\nзачисление 1 500р "x=1"',
      receivedAt: new Date('2026-11-24T07:15:07.000Z'),
    });
  });
  it('a push: a lower-case package name is an app; its title is kept', () => {
    const m = readSmsForwarderBody(
      JSON.parse(fill('ru.sberbankmobile', 'Перевод 1 500 ₽', 'Зачисление', '2026-11-24T10:15:07.000+03:00')),
    );
    assert.equal(m.channel, 'push');
    assert.equal(m.title, 'Зачисление');
  });
  it('bank SMS sender ids with a dot (OZON.bank, Yandex.Bank) stay SMS', () => {
    for (const from of ['OZON.bank', 'Yandex.Bank']) {
      assert.equal(
        readSmsForwarderBody(JSON.parse(fill(from, 't', 's', '2026-11-24T10:15:07.000+03:00'))).channel,
        'sms',
      );
    }
  });
  it('another shape, or a time without an offset, is an EnvelopeError', () => {
    assert.throws(() => readSmsForwarderBody({ from: '900', content: 'x' }), EnvelopeError);
    assert.throws(
      () => readSmsForwarderBody(JSON.parse(fill('900', 't', 's', '2026-11-24 10:15:07'))),
      EnvelopeError,
    );
  });
});

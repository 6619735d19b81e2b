import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { NATIVE_BATCH_MAX_EVENTS, NativeBatch } from './native-batch.js';

// The route validates with Fastify's ajv (date-time format included); here a compiled checker with
// the same format, so that the schema's own limits are what is tested.
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /T/.test(v));
const check = TypeCompiler.Compile(NativeBatch);

const sms = {
  event_id: 'e1',
  kind: 'sms',
  source: '900',
  text: 'СЧЁТ1234 10:15 Перевод 1501р',
  occurred_at: '2026-11-24T07:15:07Z',
};

describe('NativeBatch (docs/decisions.md section 24: raw texts only)', () => {
  it('takes SMS, push (with a title) and heartbeat events', () => {
    const body = {
      events: [
        sms,
        {
          event_id: 'e2',
          kind: 'push',
          source: 'com.idamob.tinkoff.android',
          title: 'Пополнение',
          text: 'на 1 501 ₽',
          occurred_at: '2026-11-24T07:15:09Z',
        },
        { event_id: 'e3', kind: 'heartbeat', occurred_at: '2026-11-24T07:16:00Z' },
      ],
    };
    assert.equal(check.Check(body), true, JSON.stringify([...check.Errors(body)].slice(0, 2)));
  });

  it('refuses a pre-parsed amount, an unknown kind, no events, or too many', () => {
    assert.equal(check.Check({ events: [{ ...sms, amount: 1501 }] }), false);
    assert.equal(check.Check({ events: [{ ...sms, kind: 'call' }] }), false);
    assert.equal(check.Check({ events: [] }), false);
    assert.equal(
      check.Check({
        events: Array.from({ length: NATIVE_BATCH_MAX_EVENTS + 1 }, (_, i) => ({
          ...sms,
          event_id: `e${i}`,
        })),
      }),
      false,
    );
    assert.equal(check.Check({ events: [{ ...sms, occurred_at: 'yesterday' }] }), false);
    assert.equal(check.Check({ events: [sms], amount: 1 }), false);
  });
});

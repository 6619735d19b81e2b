import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnvelopeError, readSmsGatewayEnvelope } from './sms-gateway-envelope.js';

// Bodies shaped exactly as SMS Gateway for Android serialises them (capcom6/android-sms-gateway:
// WebHookEventDTO, SmsEventPayload.SmsReceived, HealthService checks, AppStartedPayload).
const envelope = (event: string, payload: unknown) => ({
  id: 'Ey6ECgOkVVFjz3CL48B8C',
  webhookId: 'LreFUt-Z3sSq0JufY9uWB',
  event,
  deviceId: 'ffffffffceb0b1db00000018d8a3e4ad',
  payload,
});

describe('readSmsGatewayEnvelope (docs/decisions.md section 24)', () => {
  it('sms:received: the sender, the raw text and the phone receive time', () => {
    const event = readSmsGatewayEnvelope(
      envelope('sms:received', {
        messageId: '9a1f37b2',
        message: 'СЧЁТ1234 10:15 Перевод 1501р от Анна К.',
        sender: '900',
        recipient: null,
        phoneNumber: '900',
        simNumber: 1,
        receivedAt: '2026-11-24T10:15:07.000+03:00',
      }),
    );
    assert.deepEqual(event, {
      kind: 'sms',
      source: '900',
      text: 'СЧЁТ1234 10:15 Перевод 1501р от Анна К.',
      receivedAt: new Date('2026-11-24T07:15:07.000Z'),
    });
  });

  it('older app versions send only the deprecated phoneNumber; simNumber may be null', () => {
    const event = readSmsGatewayEnvelope(
      envelope('sms:received', {
        messageId: 'x',
        message: 'text',
        phoneNumber: 'VTB',
        simNumber: null,
        receivedAt: '2026-11-24T10:15:07.000Z',
      }),
    );
    assert.equal(event.kind === 'sms' && event.source, 'VTB');
  });

  it('system:ping is a heartbeat with battery, charging and connection', () => {
    const check = (status: string, observedValue: number, observedUnit: string) => ({
      status,
      observedValue,
      observedUnit,
      description: '',
    });
    const event = readSmsGatewayEnvelope(
      envelope('system:ping', {
        health: {
          status: 'warn',
          checks: {
            'battery:level': check('warn', 14, 'percent'),
            'battery:charging': check('pass', 0, 'flags'),
            'connection:status': check('pass', 1, 'boolean'),
            'messages:failed': check('pass', 0, 'messages'),
          },
        },
      }),
    );
    assert.deepEqual(event, {
      kind: 'heartbeat',
      health: { batteryPercent: 14, charging: false, connection: 'pass' },
    });
  });

  it('app:started is a heartbeat; sent, delivered and unknown events are ignored, not errors', () => {
    assert.deepEqual(readSmsGatewayEnvelope(envelope('app:started', { simCards: [] })), {
      kind: 'heartbeat',
    });
    assert.deepEqual(readSmsGatewayEnvelope(envelope('sms:delivered', {})), {
      kind: 'ignored',
      event: 'sms:delivered',
    });
    assert.deepEqual(readSmsGatewayEnvelope(envelope('mms:received', {})), {
      kind: 'ignored',
      event: 'mms:received',
    });
  });

  it('a body that is not the app shape, or an SMS without sender or time, is an EnvelopeError', () => {
    for (const body of [
      null,
      'text',
      { event: 'sms:received' },
      envelope('sms:received', { message: 'x', receivedAt: '2026-11-24T10:15:07Z' }),
      envelope('sms:received', { message: 'x', sender: '900', receivedAt: 'yesterday' }),
      envelope('sms:received', { sender: '900', receivedAt: '2026-11-24T10:15:07Z' }),
    ]) {
      assert.throws(() => readSmsGatewayEnvelope(body), EnvelopeError, JSON.stringify(body));
    }
  });
});

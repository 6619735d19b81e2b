import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REVIEW_REASONS } from '../../rails/devices/index.js';
import { ageText } from './backoffice-dashboard-pages.js';
import { errorFlashText, flashText } from './console-messages.js';
import { orderStateText, timeIn } from './console-pages.js';
import { CONSOLE_TEXTS, fill } from './console-texts.js';

describe('console catalogue (docs/decisions.md section 32)', () => {
  it('Russian and English have the same keys, none empty; every confirmation has a title and changes', () => {
    assert.deepEqual(Object.keys(CONSOLE_TEXTS.ru).sort(), Object.keys(CONSOLE_TEXTS.en).sort());
    for (const [lang, texts] of Object.entries(CONSOLE_TEXTS))
      for (const [key, text] of Object.entries(texts)) assert.ok(text.trim(), `${lang}.${key}`);
    const kinds = Object.keys(CONSOLE_TEXTS.en).filter((k) => k.endsWith('_title'));
    for (const k of kinds) assert.ok(Object.hasOwn(CONSOLE_TEXTS.en, k.replace(/_title$/, '_changes')), k);
  });

  it("every reason a phone's message waits for a person reads as words in both languages", () => {
    for (const reason of [...REVIEW_REASONS, 'unknown_source_block'])
      for (const lang of ['en', 'ru'] as const)
        assert.ok(Object.hasOwn(CONSOLE_TEXTS[lang], `review_${reason}`), `${lang} review_${reason}`);
  });

  it('fill leaves unknown holes and takes no prototype keys; ages read in the page language', () => {
    assert.equal(fill('{a} and {b} {constructor}', { a: 'x' }), 'x and {b} {constructor}');
    assert.deepEqual(
      [ageText(null), ageText(59), ageText(61), ageText(3 * 3600 + 300, 'с|мин|ч')],
      ['—', '59 s', '1 min', '3 ч 5 мин'],
    );
  });

  it('times read in the chosen zone (the exact UTC time stays on hover)', () => {
    const at = '2026-11-25T22:05:09.000Z';
    assert.deepEqual(
      [
        timeIn(at, 'UTC'),
        timeIn(at, 'Europe/Moscow'),
        timeIn(at, 'Asia/Almaty'),
        timeIn(at, 'Asia/Vladivostok'),
      ],
      ['2026-11-25 22:05', '2026-11-26 01:05', '2026-11-26 03:05', '2026-11-26 08:05'],
    );
  });

  it('an order state names what happened and who ended it, never a bare error', () => {
    const { en, ru } = CONSOLE_TEXTS;
    const ended = { status: 'error', status_reason: 'payer asked' };
    assert.deepEqual(
      [
        orderStateText({ status: 'pending', status_reason: null }, en),
        orderStateText({ status: 'error', status_reason: 'expired', ended_by: 'system' }, en),
        orderStateText({ ...ended, ended_by: 'operator:anna' }, en),
        orderStateText({ ...ended, direction: 'PAYOUT', ended_by: 'operator:bob' }, en),
        orderStateText(
          {
            ...ended,
            events: [
              { to: 'pending', actor: 'x' },
              { to: 'error', actor: 'operator:c' },
            ],
          },
          ru,
        ),
        orderStateText({ status: 'error', status_reason: null, ended_by: 'system' }, en),
      ],
      [
        'pending',
        'expired',
        'cancelled by operator:anna: payer asked',
        'failed, marked by operator:bob: payer asked',
        'отменён: operator:c: payer asked',
        'failed',
      ],
    );
  });

  it('a message after an action is a catalogue key; an error flash is a code', () => {
    const { en } = CONSOLE_TEXTS;
    assert.equal(flashText({ msg: 'chainSaved', msg_chain: 'bitcoin' }, en), 'Chain bitcoin saved.');
    assert.equal(flashText({ msg: 'toString' }, en), null);
    assert.equal(flashText({ msg: 'Wire money to 2200...' }, en), null);
    assert.equal(
      errorFlashText({ error: 'FORBIDDEN' }, en),
      'Not allowed. Your role does not allow this page or action, or the form expired.',
    );
    assert.equal(errorFlashText({ error: 'SOME_NEW_CODE' }, en), 'SOME_NEW_CODE. The action was refused.');
    assert.equal(errorFlashText({ error: 'lower case' }, en), null);
  });
});

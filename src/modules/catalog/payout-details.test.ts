// Unit table for parsePayoutDetails (docs/api.md "createOrder - PAYOUT"; docs/decisions.md sections 3, 10).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../lib/errors.js';
import { HOLDER_ACCOUNT_DIGITS, parsePayoutDetails } from './payout-details.js';

const BANKS: ReadonlySet<string> = new Set(['Sberbank', 'T-Bank', 'Alfa-Bank']);
const SIM = '79001234567';
const CARD = '2200123456789012';

const details = (over: Record<string, unknown> = {}) => ({
  holderAccount: SIM,
  holderName: 'Ivan Petrov',
  methodName: 'Sberbank',
  ...over,
});

/** Asserts that parsing throws an AppError with exactly this code. */
function rejects(value: unknown, type: string, code: string): void {
  assert.throws(
    () => parsePayoutDetails(value, type, BANKS),
    (err: unknown) => {
      assert.ok(err instanceof AppError, `not an AppError: ${String(err)}`);
      assert.equal(err.code, code, `${JSON.stringify(value)} as ${type}`);
      assert.equal(err.status, 400, `${JSON.stringify(value)} as ${type}`);
      return true;
    },
  );
}

describe('parsePayoutDetails', () => {
  describe('happy', () => {
    it('account lengths: 11 for sim, 16 for card', () => {
      assert.deepEqual(HOLDER_ACCOUNT_DIGITS, { sim: 11, card: 16 });
    });

    it('a sim payout with an 11-digit account', () => {
      assert.deepEqual(parsePayoutDetails(details(), 'sim', BANKS), {
        holderAccount: SIM,
        holderName: 'Ivan Petrov',
        methodName: 'Sberbank',
      });
    });

    it('a card payout with a 16-digit account, another bank', () => {
      const parsed = parsePayoutDetails(
        details({ holderAccount: CARD, methodName: 'T-Bank' }),
        'card',
        BANKS,
      );
      assert.deepEqual(parsed, { holderAccount: CARD, holderName: 'Ivan Petrov', methodName: 'T-Bank' });
    });

    it('trims the holder name and keeps only the three fields', () => {
      const parsed = parsePayoutDetails(
        details({ holderName: '  Anna Ivanova  ', extra: 'x', comment: 'y' }),
        'sim',
        BANKS,
      );
      assert.deepEqual(parsed, { holderAccount: SIM, holderName: 'Anna Ivanova', methodName: 'Sberbank' });
    });

    it('an account made of zeros is still digits only', () => {
      const parsed = parsePayoutDetails(details({ holderAccount: '0'.repeat(16) }), 'card', BANKS);
      assert.equal(parsed.holderAccount, '0000000000000000');
    });
  });

  describe('INVALID_PAYOUT_DETAILS: missing or incomplete details', () => {
    const table: Array<[string, unknown]> = [
      ['undefined', undefined],
      ['null', null],
      ['a string', 'Sberbank 79001234567'],
      ['a number', 79001234567],
      ['an array', [SIM, 'Ivan Petrov', 'Sberbank']],
      ['an empty object', {}],
      ['no holderAccount', { holderName: 'Ivan Petrov', methodName: 'Sberbank' }],
      ['empty holderAccount', details({ holderAccount: '' })],
      ['null holderAccount', details({ holderAccount: null })],
      ['no holderName', { holderAccount: SIM, methodName: 'Sberbank' }],
      ['empty holderName', details({ holderName: '' })],
      ['blank holderName', details({ holderName: '   ' })],
      ['numeric holderName', details({ holderName: 42 })],
      ['no methodName', { holderAccount: SIM, holderName: 'Ivan Petrov' }],
      ['empty methodName', details({ methodName: '' })],
      ['numeric methodName', details({ methodName: 1 })],
    ];
    for (const [name, value] of table) {
      it(name, () => rejects(value, 'sim', 'INVALID_PAYOUT_DETAILS'));
    }
  });

  describe('INVALID_PAYOUT_DETAILS: methodName not a bank name', () => {
    const table: Array<[string, string]> = [
      ['unknown bank', 'Bank of Nowhere'],
      ['a bank code instead of its name', 'sber'],
      ['another letter case', 'sberbank'],
      ['surrounding spaces', ' Sberbank '],
    ];
    for (const [name, methodName] of table) {
      it(name, () => rejects(details({ methodName }), 'sim', 'INVALID_PAYOUT_DETAILS'));
    }

    it('an empty bank set accepts no bank', () => {
      assert.throws(
        () => parsePayoutDetails(details(), 'sim', new Set()),
        (err: unknown) => err instanceof AppError && err.code === 'INVALID_PAYOUT_DETAILS',
      );
    });
  });

  describe('INVALID_HOLDER_ACCOUNT: not digits only, or the wrong length for the type', () => {
    const table: Array<[string, string, string]> = [
      ['sim with a leading +', 'sim', `+${SIM}`],
      ['sim with 10 digits', 'sim', SIM.slice(0, 10)],
      ['sim with 12 digits', 'sim', `${SIM}0`],
      ['sim with a 16-digit card number', 'sim', CARD],
      ['sim with dashes', 'sim', '7-900-123-45-67'],
      ['sim with spaces', 'sim', '7 900 123 45 67'],
      ['sim with a trailing newline', 'sim', `${SIM}\n`],
      ['sim with a letter', 'sim', '7900123456O'],
      ['sim with non-ASCII digits', 'sim', '٧٩٠٠١٢٣٤٥٦٧'],
      ['card with 15 digits', 'card', CARD.slice(0, 15)],
      ['card with 17 digits', 'card', `${CARD}1`],
      ['card with an 11-digit phone', 'card', SIM],
      ['card with spaces', 'card', '2200 1234 5678 9012'],
      ['card with a leading +', 'card', `+${CARD.slice(1)}`],
      ['card with full-width digits', 'card', '２２００１２３４５６７８９０１２'],
    ];
    for (const [name, type, holderAccount] of table) {
      it(name, () => rejects(details({ holderAccount }), type, 'INVALID_HOLDER_ACCOUNT'));
    }
  });
});

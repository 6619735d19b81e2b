import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CorpusEntry,
  type CorpusFile,
  type CorpusReader,
  EXPECTED_KINDS,
  entryProblems,
  isFalseBlock,
  judge,
  loadCorpus,
  sameEnding,
  tally,
} from '../../scripts/bank-messages/corpus.js';
import { readWithServiceReader } from '../../scripts/bank-messages/reader.js';

// The corpus of real-format bank texts and its report (docs/bank-messages.md).
const files = loadCorpus();
const entries = files.flatMap((f) => f.entries);

describe('the bank-message corpus (docs/bank-messages.md "Schema")', () => {
  it('gives every text a valid shape, an expected reading and a public source', () => {
    const problems = files.flatMap((f) =>
      f.entries.flatMap((e) => entryProblems(f, e).map((p) => `${e.id}: ${p}`)),
    );
    assert.deepEqual(problems, []);
  });

  it('names every text once, in the file of its bank', () => {
    const ids = entries.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'duplicate ids');
    const texts = entries.map((e) => `${e.bank}\u0000${e.text}`);
    assert.equal(new Set(texts).size, texts.length, 'the same text twice in one bank');
  });

  it('holds at least 400 texts of at least 15 banks, SMS and push, with every kind of reading', () => {
    assert.ok(entries.length >= 400, `${entries.length} texts`);
    assert.ok(files.length >= 15, `${files.length} banks`);
    assert.deepEqual([...new Set(entries.map((e) => e.channel))].sort(), ['push', 'sms']);
    for (const kind of EXPECTED_KINDS) {
      assert.ok(
        entries.some((e) => e.expected.kind === kind && !e.synthetic),
        `no real text of kind ${kind}`,
      );
    }
  });

  it('keeps synthetic texts a minority of every bank and never the only text of a kind', () => {
    for (const f of files) {
      const synthetic = f.entries.filter((e) => e.synthetic);
      assert.ok(synthetic.length * 2 < f.entries.length, `${f.bank}: ${synthetic.length} synthetic`);
      for (const e of synthetic) {
        assert.ok(
          f.entries.some((x) => !x.synthetic && x.expected.kind === e.expected.kind),
          `${e.id} is the only ${e.expected.kind} text of ${f.bank}`,
        );
      }
    }
  });
});

describe('the corpus report counts (docs/bank-messages.md "How it is measured")', () => {
  const file: CorpusFile = {
    bank: 'sber',
    name: 'Sberbank',
    entries: [
      entry('sber-001', 'credit', '1500', '4821'),
      entry('sber-002', 'debit', '2480', '3391'),
      entry('sber-003', 'otp'),
    ],
  };

  it('flags every non-credit when a reader calls everything a credit', () => {
    const all: CorpusReader = (e) => ({
      kind: 'credit',
      amount: e.expected.amount ?? '1',
      ...(e.expected.mask ? { mask: e.expected.mask } : {}),
      detail: 'fake',
    });
    const total = tally([file], judge([file], all)).at(-1);
    assert.equal(total?.nonCreditsAsCredits, 2);
    assert.equal(total?.creditsRight, 1);
  });

  it('counts a credit with the right amount but another ending as wrong, to review', () => {
    const otherEnding: CorpusReader = (e) =>
      e.expected.kind === 'credit'
        ? { kind: 'credit', amount: '1500.00', mask: '0000', detail: 'fake' }
        : { kind: 'unread', detail: 'fake' };
    const total = tally([file], judge([file], otherEnding)).at(-1);
    assert.deepEqual(
      [total?.creditsRight, total?.creditsToReview, total?.creditsWrongAmount, total?.nonCreditsAsCredits],
      [0, 1, 1, 0],
    );
  });

  it('takes an ending as the same when one is the tail of the other, 4 digits at least', () => {
    assert.equal(sameEnding('6719', '26719'), true);
    assert.equal(sameEnding('6719', '6719'), true);
    assert.equal(sameEnding('6719', '719'), false);
    assert.equal(sameEnding('6719', '1234'), false);
    assert.equal(sameEnding('6719', undefined), false);
  });

  it('reads every credit right when a reader returns the expected reading (amounts compared as decimals)', () => {
    const exact: CorpusReader = (e) =>
      e.expected.kind === 'credit'
        ? { kind: 'credit', amount: '1500.0', mask: e.expected.mask as string, detail: 'fake' }
        : { kind: 'info', detail: 'fake' };
    const rows = tally([file], judge([file], exact));
    assert.deepEqual(
      rows.map((r) => [r.channel, r.texts, r.credits, r.creditsRight, r.nonCreditsAsCredits]),
      [
        ['sms', 3, 1, 1, 0],
        ['all', 3, 1, 1, 0],
      ],
    );
  });
});

describe('the service\'s reader on the corpus (docs/bank-messages.md "Baseline")', () => {
  const verdicts = judge(files, readWithServiceReader);

  it('reads every credit right (the baseline was 31 of 272)', () => {
    const left = verdicts
      .filter((v) => v.entry.expected.kind === 'credit' && v.verdict !== 'credit-right')
      .map((v) => v.entry.id);
    assert.deepEqual(left, []);
  });

  it('reads no non-credit as a credit', () => {
    const wrong = verdicts.filter((v) => v.verdict === 'non-credit-as-credit').map((v) => v.entry.id);
    assert.deepEqual(wrong, []);
  });

  it("reads no text as a block that is not the bank's own block notice", () => {
    assert.deepEqual(
      verdicts.filter(isFalseBlock).map((v) => v.entry.id),
      [],
    );
  });
});

function entry(
  id: string,
  kind: CorpusEntry['expected']['kind'],
  amount?: string,
  mask?: string,
): CorpusEntry {
  return {
    id,
    bank: 'sber',
    channel: 'sms',
    sender: '900',
    text: `${kind} ${amount ?? ''}`,
    expected: { kind, ...(amount ? { amount, currency: 'RUB' } : {}), ...(mask ? { mask } : {}) },
    source: { url: 'https://example.org/synthetic', note: 'a unit test of the counts' },
    synthetic: true,
  };
}

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type CorpusEntry, creditReadRight, loadCorpus } from '../../scripts/bank-messages/corpus.js';
import { readWithServiceReader } from '../../scripts/bank-messages/reader.js';

// Held-out texts (docs/bank-messages.md "Held-out texts"): real formats of the simulated day's ten
// banks that are not in the corpus the reader was measured on.
interface HeldOut extends CorpusEntry {
  template?: string;
  amountStyle?: string;
}
const file = JSON.parse(
  readFileSync(new URL('../fixtures/bank-messages/held-out/held-out.json', import.meta.url), 'utf8'),
) as { gaps: Record<string, string>; entries: HeldOut[] };
const corpusTexts = new Set(loadCorpus().flatMap((f) => f.entries.map((e) => e.text.trim())));

describe('the held-out bank texts', () => {
  it('are none of the corpus texts, each with its public source', () => {
    for (const e of file.entries) {
      assert.ok(!corpusTexts.has(e.text.trim()), `${e.id} is in the corpus`);
      assert.ok(e.source.repo && e.source.path && e.source.commit, `${e.id} names its source`);
      assert.ok(!e.synthetic, `${e.id}: held-out texts are real`);
    }
  });

  it('template the amount and the ending only where the text shows them', () => {
    for (const e of file.entries.filter((x) => x.template)) {
      const template = e.template as string;
      assert.match(template, /\{amount\}/, e.id);
      assert.equal(template.includes('{mask}'), e.expected.mask !== undefined, e.id);
      assert.ok(e.amountStyle, `${e.id} names how it writes amounts`);
    }
  });

  it('name the banks with no held-out text', () => {
    assert.deepEqual(Object.keys(file.gaps).sort(), ['gasprom', 'mts', 'ozon', 'pochta', 'sovkom']);
  });

  it('are read as their sources read them: every credit right, no other text a credit', () => {
    const wrong = file.entries.flatMap((e) => {
      const reading = readWithServiceReader(e);
      const right = e.expected.kind === 'credit' ? creditReadRight(e, reading) : reading.kind !== 'credit';
      return right ? [] : [`${e.id}: ${reading.kind} ${reading.amount ?? ''} ${reading.detail}`];
    });
    assert.deepEqual(wrong, []);
  });
});

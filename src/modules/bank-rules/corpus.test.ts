import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AppError } from '../../lib/errors.js';
import { corpusLoader } from './corpus.js';

// docs/decisions.md "Rules learned from the review queue": the corpus as the running service reads it.
describe('the corpus at run time', () => {
  it("reads the checkout's corpus: every text with its kind, a push's title split off", async () => {
    const texts = await corpusLoader()();
    assert.ok(texts.length >= 400, `${texts.length} texts`);
    assert.ok(texts.some((t) => t.kind === 'debit') && texts.some((t) => t.kind === 'credit'));
    assert.ok(
      texts.every((t) => !t.text.includes('║')),
      'titles are split off',
    );
    assert.ok(texts.some((t) => t.title !== undefined));
    assert.match(texts[0]?.name ?? '', /^corpus [a-z]+-\d{3} \([a-z]+\)$/);
  });

  it('refuses to answer from a folder it cannot read or that holds no text (CORPUS_UNAVAILABLE)', async () => {
    for (const dir of [join(tmpdir(), 'no-such-corpus-folder'), mkdtempSync(join(tmpdir(), 'corpus-'))]) {
      await assert.rejects(
        corpusLoader(dir)(),
        (err) => err instanceof AppError && err.code === 'CORPUS_UNAVAILABLE',
      );
    }
  });
});

/**
 * The bank-message corpus as the running service reads it (docs/decisions.md "Rules learned from the
 * review queue"): the same files the tests and the report read (`test/fixtures/bank-messages/corpus`,
 * docs/bank-messages.md), found at the same place beside `src/` and `dist/` (like the migrations in
 * `./drizzle`) or at `BANK_MESSAGE_CORPUS_DIR`. Loaded once per process, when a rule is first
 * switched on.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../lib/errors.js';
import type { NonCredit } from './rule-checks.js';

/** The corpus folder of this checkout. */
export const DEFAULT_CORPUS_DIR = fileURLToPath(
  new URL('../../../test/fixtures/bank-messages/corpus/', import.meta.url),
);

/** One corpus text as the checks need it. */
export interface CorpusText extends NonCredit {
  kind: string;
}

interface CorpusFileShape {
  entries?: Array<{ id?: string; channel?: string; text?: string; expected?: { kind?: string } }>;
}

/** Every text of the corpus; a push's `║` splits its text (before) from its title (after). */
async function readCorpus(dir: string): Promise<CorpusText[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const texts: CorpusText[] = [];
  for (const name of names) {
    const file = JSON.parse(await readFile(join(dir, name), 'utf8')) as CorpusFileShape;
    for (const e of file.entries ?? []) {
      if (!e.text || !e.expected?.kind) continue;
      const [text, title] =
        e.channel === 'push' && e.text.includes('║') ? e.text.split('║', 2).map((s) => s.trim()) : [e.text];
      const kind = e.expected.kind;
      texts.push({ name: `corpus ${e.id} (${kind})`, text: text ?? '', ...(title ? { title } : {}), kind });
    }
  }
  return texts;
}

/**
 * The corpus loader of one process: the texts, read once. Throws CORPUS_UNAVAILABLE when the folder
 * cannot be read or holds no text (no rule is switched on unchecked).
 */
export function corpusLoader(dir: string = DEFAULT_CORPUS_DIR) {
  let loaded: Promise<CorpusText[]> | undefined;
  return async (): Promise<CorpusText[]> => {
    loaded ??= readCorpus(dir).catch(() => []);
    const texts = await loaded;
    if (texts.length === 0) {
      loaded = undefined;
      throw new AppError('CORPUS_UNAVAILABLE');
    }
    return texts;
  };
}

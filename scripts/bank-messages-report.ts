/**
 * `npm run bank-messages:report [-- --strict] [-- --list]`: reads every corpus text with the
 * service's reader and prints, per bank and channel, how many credits were read right, how many go
 * to review, and how many non-credits were read as credits (docs/bank-messages.md).
 *
 * Exit code 1 when a non-credit is read as a credit; with `--strict` also when any credit is not
 * read right or a text that is not a block notice is read as one. `--list` prints every credit to review as well (the non-credits read as credits are
 * always listed).
 */
import {
  isFalseBlock,
  judge,
  loadCorpus,
  markdownTable,
  tally,
  type Verdict,
} from './bank-messages/corpus.js';
import { readWithServiceReader } from './bank-messages/reader.js';

const args = new Set(process.argv.slice(2));
const strict = args.has('--strict');
const files = loadCorpus();
const verdicts = judge(files, readWithServiceReader);
const rows = tally(files, verdicts);

const line = (v: Verdict): string =>
  `  ${v.entry.id} [${v.reading.detail}${v.reading.amount ? ` ${v.reading.amount}` : ''}] ${v.entry.text.replace(/\s*\n\s*/g, ' ⏎ ')}`;

console.log(markdownTable(rows));
const wrong = verdicts.filter((v) => v.verdict === 'non-credit-as-credit');
if (wrong.length > 0) {
  console.log(`\nNon-credits read as credits (${wrong.length}, must be 0):`);
  for (const v of wrong) console.log(`${line(v)}  (expected ${v.entry.expected.kind})`);
}
const blocks = verdicts.filter(isFalseBlock);
if (blocks.length > 0) {
  console.log(`\nTexts read as a block that are not the bank's block notice (${blocks.length}):`);
  for (const v of blocks) console.log(`${line(v)}  (expected ${v.entry.expected.kind})`);
}
const review = verdicts.filter(
  (v) => v.verdict === 'credit-to-review' || v.verdict === 'credit-wrong-amount',
);
if (args.has('--list') && review.length > 0) {
  console.log(`\nCredits not read right (${review.length}):`);
  for (const v of review) console.log(line(v));
}
const total = rows[rows.length - 1];
console.log(
  `\n${total?.texts} texts of ${files.length} banks; ${total?.creditsRight} of ${total?.credits} credits read right; ${wrong.length} non-credits read as credits.`,
);
if (wrong.length > 0 || (strict && (review.length > 0 || blocks.length > 0))) process.exit(1);

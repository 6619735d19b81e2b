/**
 * The one adapter from the service's message reader (src/modules/bank-messages) to the corpus report
 * (docs/bank-messages.md "How it is measured"). When the reader's signature changes, only this
 * function changes.
 */
import { bankFormat, parseBankMessage } from '../../src/modules/bank-messages/index.js';
import type { CorpusEntry, Reading } from './corpus.js';

/**
 * Reads one corpus text as the service would for a requisite of that bank. A push text holding `║`
 * (the sources' way of writing a notification) is split into its text (before) and title (after).
 * A bank the service has no rules for is read by parts alone (rule ids `generic.*`).
 */
export function readWithServiceReader(entry: CorpusEntry): Reading {
  // A bank with no rules is read by the parts of its texts, as the service does once operators
  // list its senders.
  const format = bankFormat(entry.bank) ?? {
    code: entry.bank,
    name: entry.bank,
    senders: [],
    packages: [],
    rules: [],
  };
  const [text, title] =
    entry.channel === 'push' && entry.text.includes('║')
      ? (entry.text.split('║', 2).map((s) => s.trim()) as [string, string])
      : [entry.text, undefined];
  const parsed = parseBankMessage(format, {
    channel: entry.channel,
    text,
    ...(title ? { title } : {}),
  });
  if (parsed.status === 'unparsed') return { kind: 'unread', detail: 'unparsed' };
  if (parsed.status === 'ambiguous')
    return { kind: 'unread', detail: `ambiguous ${parsed.doubt} ${parsed.ruleIds.join(',')}` };
  return {
    kind: parsed.kind,
    ...(parsed.fields.amount !== undefined ? { amount: parsed.fields.amount } : {}),
    ...(parsed.fields.mask !== undefined ? { mask: parsed.fields.mask } : {}),
    detail: parsed.ruleId,
  };
}

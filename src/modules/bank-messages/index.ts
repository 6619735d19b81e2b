/**
 * Reading banks' messages (docs/decisions.md "Bank messages: how they are read and when they
 * credit"): normalisation, the parts every notice has, rules per bank as data (`banks/`), and the
 * parse of one message. Pure: no tables, no I/O.
 */
export { BANK_FORMATS, bankFormat, creditShowsEnding } from './bank-formats.js';
export type {
  BankFormat,
  BankRule,
  LearnedRule,
  MessageChannel,
  MessageFields,
  MessageKind,
} from './bank-rule.js';
export { learnedFields, learnedRuleId } from './learned-rules.js';
export { type MessageParts, readParts } from './message-parts.js';
export { normaliseMessage, parseAmount } from './normalise.js';
export {
  banksOfSource,
  type Doubt,
  MAX_TEXT,
  type ParsedMessage,
  parseBankMessage,
} from './parse-message.js';

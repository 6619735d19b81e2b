/**
 * Reading banks' incoming-credit messages (issue 19 section 2): normalisation, rules per bank as
 * data (`banks/`), and the parse of one message. Pure: no tables, no I/O.
 */
export { BANK_FORMATS, bankFormat } from './bank-formats.js';
export type { BankFormat, BankRule, MessageChannel, MessageFields, MessageKind } from './bank-rule.js';
export { normaliseMessage, parseAmount } from './normalise.js';
export { banksOfSource, type ParsedMessage, parseBankMessage } from './parse-message.js';

/**
 * Bank-message rules learned from the review queue (docs/decisions.md "Rules learned from the review
 * queue"): proposals from assigned messages, the checks before a rule is switched on (the corpus,
 * stored non-credits, breadth), and the active rules every process's reader consults.
 */
export {
  type BankRules,
  createBankRules,
  type RuleExampleInput,
  type RuleView,
} from './bank-rules-service.js';

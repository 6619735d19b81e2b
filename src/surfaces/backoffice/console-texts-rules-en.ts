/**
 * The console's words for the bank-message rules learned from the review queue (docs/decisions.md
 * "Rules learned from the review queue"): the rules page, the proposal from an assigned message and
 * the messages a rule switched on reads.
 */
export const CONSOLE_RULES_EN = {
  learnedRules: 'Learned rules',
  learnedRulesIntro:
    'Rules made from messages operators assigned: the text with the amount, ending, payer and balance as holes. A rule reads only credits of its bank and is checked against the whole corpus and the stored non-credits before it is switched on.',
  ruleStatus_proposed: 'proposed',
  ruleStatus_active: 'on',
  ruleStatus_off: 'off',
  rulePattern: 'Pattern',
  ruleExample: 'Example',
  ruleProposed: 'Proposed',
  ruleEnabled: 'Switched on',
  ruleDisabled: 'Switched off',
  enableRule: 'Check and switch on',
  disableRule: 'Switch off',
  ruleReads: 'Messages it reads',
  noRules: 'No rule yet: assign a message the reader does not know, then make it a rule.',
  proposeRule: 'Teach the reader this text',
  proposeRuleHint: 'Makes a rule proposal from the text (an admin checks and switches it on).',
  ruleMatchesTitle: 'Messages in the queue the rule reads',
  ruleMatchesNone: 'No message waiting in the queue reads with this rule.',
  ruleReadAmount: 'Read amount',
  flash_ruleProposed: 'Rule proposed from the message; an admin checks and switches it on.',
  flash_ruleEnabled: 'Rule checked against the corpus and switched on.',
  flash_ruleDisabled: 'Rule switched off.',
  flash_ruleAssigned: 'Order {order} confirmed with the message the rule read.',
  err_RULE_STATE_CONFLICT: 'Not in this state',
  err_RULE_STATE_CONFLICT_text: 'The rule or message is not in a state for this. {detail}',
  err_RULE_READS_NON_CREDIT: 'The rule would read a non-credit as a credit',
  err_RULE_READS_NON_CREDIT_text: 'Not switched on: {detail}',
  err_RULE_TOO_BROAD: 'The rule reads too much',
  err_RULE_TOO_BROAD_text: 'Not switched on: {detail}',
  err_CORPUS_UNAVAILABLE: 'The corpus cannot be read',
  err_CORPUS_UNAVAILABLE_text: 'No rule is switched on unchecked; check BANK_MESSAGE_CORPUS_DIR.',
};

/** A one-line message after a rule's action: the part after `flash_` of a key above. */
export type RuleFlashKey = {
  [K in keyof typeof CONSOLE_RULES_EN]: K extends `flash_${infer Name}` ? Name : never;
}[keyof typeof CONSOLE_RULES_EN];

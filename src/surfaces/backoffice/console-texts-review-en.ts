/**
 * The console's words for why a phone's message waits in the review queue, and for its candidate
 * orders (docs/decisions.md "Bank messages: how they are read and when they credit"). Keys are
 * `review_<reason>` for every reason the service gives.
 */
export const CONSOLE_REVIEW_EN = {
  review_unparsed: 'A text from the bank the reader does not know: read it and assign or dismiss.',
  review_ambiguous: "The bank's rules read this text differently: check the amount by hand.",
  review_no_direction: 'An amount, but no word or sign that money came in: is it a payment?',
  review_both_directions: 'Words of money coming in and going out: check which it is.',
  review_two_amounts: 'Two amounts: pick the order of the one that is the payment.',
  review_unknown_source:
    "A credit from a sender that is not on the bank's list: if it is the bank's, mark the sender.",
  review_device_not_bound: 'The phone is not bound to this requisite.',
  review_wrong_mask: "The card or account ending is not the requisite's: whose card is it?",
  review_time_mismatch: "The time in the text is far from the phone's receive time.",
  review_no_order: 'No pending order of this amount on the requisite.',
  review_several_orders: 'Several pending orders of this amount: pick the right one.',
  review_late: 'The order had expired: a late payment.',
  review_outside_life: "Received outside the order's life.",
  review_needs_operator: 'SmsForwarder (unsigned): the deployment wants a person to confirm.',
  review_requisite_blocked: 'The requisite is paused by its bank’s block notice.',
  review_no_requisite: 'The phone has no requisite at this bank.',
  review_several_requisites: 'The phone has several requisites at this bank and the text shows no ending.',
  review_currency_mismatch: "The credit's currency is not the requisite's.",
  review_bank_own_money:
    "Interest, cashback, a benefit or the holder's own deposit: money in, but no payer's transfer.",
  review_expired_while_offline: 'The order expired while its phone was silent: was it paid?',
  holderReportReceipt: "the holder's receipt",
  review_holder_report:
    'The holder reports a payment their phone missed (their word and receipt, not a bank message): check the bank before confirming an order',
  review_unknown_source_block: 'A block notice from a sender that is not the bank’s (maybe phishing).',
  candidates: 'Could be',
  noCandidates: 'No pending or recent order of this amount on the requisite.',
  markSender: 'The sender is {bank}’s',
} as const;

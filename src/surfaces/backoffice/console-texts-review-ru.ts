import type { CONSOLE_REVIEW_EN } from './console-texts-review-en.js';

/** The console's Russian words for review reasons: every key of the English ones. */
export const CONSOLE_REVIEW_RU = {
  review_unparsed: 'Текст банка, который читатель не знает: прочтите и подтвердите заказ или закройте.',
  review_ambiguous: 'Правила банка прочли текст по-разному: проверьте сумму вручную.',
  review_no_direction: 'Есть сумма, но нет слова или знака, что деньги пришли: это оплата?',
  review_both_directions: 'Есть слова и о поступлении, и о списании: проверьте, что это.',
  review_two_amounts: 'Две суммы: выберите заказ той, что является оплатой.',
  review_unknown_source:
    'Поступление от отправителя, которого нет в списке банка: если это банк, отметьте отправителя.',
  review_device_not_bound: 'Телефон не привязан к этому реквизиту.',
  review_wrong_mask: 'Окончание карты или счёта не совпадает с реквизитом: чья это карта?',
  review_time_mismatch: 'Время в тексте далеко от времени получения на телефоне.',
  review_no_order: 'На реквизите нет ожидающего заказа на эту сумму.',
  review_several_orders: 'Несколько ожидающих заказов на эту сумму: выберите нужный.',
  review_late: 'Заказ уже истёк: поздняя оплата.',
  review_outside_life: 'Получено вне срока жизни заказа.',
  review_needs_operator: 'SmsForwarder (без подписи): по настройке подтверждает человек.',
  review_requisite_blocked: 'Реквизит приостановлен уведомлением банка о блокировке.',
  review_no_requisite: 'У телефона нет реквизита в этом банке.',
  review_several_requisites: 'У телефона несколько реквизитов в этом банке, а в тексте нет окончания.',
  review_currency_mismatch: 'Валюта поступления не совпадает с валютой реквизита.',
  review_bank_own_money:
    'Проценты, кешбэк, пособие или собственный вклад держателя: деньги пришли, но это не перевод плательщика.',
  review_expired_while_offline: 'Заказ истёк, пока телефон молчал: была ли оплата?',
  holderReportReceipt: 'чек держателя',
  review_holder_report:
    'Держатель сообщает о платеже, который пропустил его телефон (его слова и чек, не сообщение банка): проверьте банк, прежде чем подтверждать заказ',
  review_unknown_source_block: 'Уведомление о блокировке не от банка (возможно, фишинг).',
  candidates: 'Возможные заказы',
  noCandidates: 'На реквизите нет ожидающего или недавнего заказа на эту сумму.',
  markSender: 'Отправитель — {bank}',
} as const satisfies Record<keyof typeof CONSOLE_REVIEW_EN, string>;

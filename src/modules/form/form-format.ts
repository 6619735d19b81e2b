import { money, roundUp } from '../../lib/money.js';

/** A card number grouped by 4 digits: "2200 1234 5678 9010". Non-card text is returned as is. */
export function formatCard(address: string): string {
  return /^\d{16,19}$/.test(address) ? (address.match(/.{1,4}/g) ?? [address]).join(' ') : address;
}

/** A Russian phone as "+7 (XXX) XXX-XX-XX" (11 digits starting with 7 or 8); others unchanged. */
export function formatPhone(address: string): string {
  const m = /^[78](\d{3})(\d{3})(\d{2})(\d{2})$/.exec(address);
  return m ? `+7 (${m[1]}) ${m[2]}-${m[3]}-${m[4]}` : address;
}

/** Chain ids of EIP-681 URIs. */
const EVM_CHAIN: Record<string, number> = { ERC20: 1, BEP20: 56 };
/** USDT token contracts and decimals on the EVM networks and TRON. */
const USDT_TOKEN: Record<string, { contract: string; decimals: number }> = {
  ERC20: { contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
  BEP20: { contract: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
};

/**
 * The amount in the token's smallest units, rounded UP: a token with fewer decimals than `cryptoAmount`
 * (USDT ERC20 has 6) must never ask the payer for less than the order needs.
 */
function units(amount: string, decimals: number): string {
  return roundUp(money(amount).times(money(10).pow(decimals)), 0).toFixed(0);
}

/**
 * The payment URI a wallet understands, for the crypto QR (issue 7): BIP21 for BTC/LTC, EIP-681 for
 * EVM (native value in wei, USDT as a token transfer), TRON and TON address URIs with the amount.
 * `amount` is the exact coin amount (or null: then the URI carries the address only).
 */
export function paymentUri(coin: string, network: string, address: string, amount: string | null): string {
  if (coin === 'BTC' || coin === 'LTC') {
    const scheme = coin === 'BTC' ? 'bitcoin' : 'litecoin';
    return amount ? `${scheme}:${address}?amount=${money(amount).toFixed()}` : `${scheme}:${address}`;
  }
  if (network === 'ERC20' || network === 'BEP20') {
    const chain = EVM_CHAIN[network];
    const token = USDT_TOKEN[network];
    if (coin === 'USDT' && token) {
      return amount
        ? `ethereum:${token.contract}@${chain}/transfer?address=${address}&uint256=${units(amount, token.decimals)}`
        : `ethereum:${token.contract}@${chain}/transfer?address=${address}`;
    }
    return amount
      ? `ethereum:${address}@${chain}?value=${units(amount, 18)}`
      : `ethereum:${address}@${chain}`;
  }
  if (network === 'TRC20')
    return amount ? `tron:${address}?amount=${money(amount).toFixed()}` : `tron:${address}`;
  if (network === 'TON') {
    return amount && coin === 'TON'
      ? `ton://transfer/${address}?amount=${units(amount, 9)}`
      : `ton://transfer/${address}`;
  }
  return address;
}

export type Lang = 'ru' | 'en';

/**
 * The page language (issue 7): `?lang=en|ru` wins, then the first Accept-Language that is English or
 * Russian; Russian by default.
 */
export function pickLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (query === 'en' || query === 'ru') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'en' || tag === 'ru') return tag;
  }
  return 'ru';
}

/** Texts of the payment form. */
export const TEXTS = {
  ru: {
    title: 'Оплата заказа',
    payExactly: 'Переведите ровно эту сумму',
    shifted: 'Сумма изменена для быстрой проверки платежа: переведите ровно',
    card: 'Номер карты',
    phone: 'Номер телефона (СБП)',
    qr: 'Отсканируйте QR-код в приложении банка',
    account: 'Счёт получателя',
    bank: 'Банк',
    holder: 'Получатель',
    copy: 'Копировать',
    copied: 'Скопировано',
    timeLeft: 'Осталось времени',
    address: 'Адрес кошелька',
    cryptoAmount: 'Сумма к отправке',
    network: 'Сеть',
    coin: 'Монета',
    cryptoPending: 'Сумма рассчитывается, страница обновится сама',
    uploadTitle: 'Чек об оплате',
    uploadHint: 'PDF, JPEG или PNG до 5 МБ. Перетащите файл сюда или выберите его.',
    uploadButton: 'Выбрать файл',
    uploading: 'Загружаем…',
    underReview: 'Чек на проверке',
    accepted: 'Чек принят',
    rejected: 'Чек отклонён, загрузите другой',
    tooLarge: 'Файл больше 5 МБ',
    badType: 'Нужен PDF, JPEG или PNG',
    uploadFailed: 'Не удалось загрузить чек',
    success: 'Оплата получена. Спасибо!',
    expired: 'Время на оплату истекло',
    failed: 'Заказ отменён',
    waiting: 'Ожидаем оплату',
    notFound: 'Страница оплаты не найдена',
    notFoundHint: 'Проверьте ссылку или вернитесь в магазин.',
    appealTitle: 'Вы уже оплатили?',
    appealHint:
      'Если вы перевели деньги, загрузите чек: мы проверим платёж и зачислим его. PDF, JPEG или PNG до 5 МБ.',
    appealButton: 'Отправить чек',
    testOrder: 'Тестовый заказ: деньги не списываются. Не переводите настоящие деньги по этим реквизитам.',
    sandboxTitle: 'Песочница',
    outcome_paid: 'Оплатить (тест)',
    outcome_expired: 'Истечь',
    outcome_cancelled: 'Отменить',
    outcome_receipt_accepted: 'Принять чек',
    outcome_receipt_rejected: 'Отклонить чек',
    outcome_payout_sent: 'Выплата отправлена',
    outcome_payout_failed: 'Выплата не прошла',
    appealOpen: 'Чек получен, платёж проверяется. Ответ до',
    appealAccepted: 'Платёж подтверждён. Спасибо!',
    appealRejected: 'Платёж не подтверждён',
    appealBusy: 'Чек уже на проверке',
  },
  en: {
    title: 'Payment',
    payExactly: 'Transfer exactly this amount',
    shifted: 'The amount was adjusted so we can match your payment: transfer exactly',
    card: 'Card number',
    phone: 'Phone number (fast payment)',
    qr: 'Scan the QR code in your banking app',
    account: 'Account',
    bank: 'Bank',
    holder: 'Recipient',
    copy: 'Copy',
    copied: 'Copied',
    timeLeft: 'Time left',
    address: 'Wallet address',
    cryptoAmount: 'Amount to send',
    network: 'Network',
    coin: 'Coin',
    cryptoPending: 'The amount is being calculated; this page updates itself',
    uploadTitle: 'Payment receipt',
    uploadHint: 'PDF, JPEG or PNG up to 5 MB. Drop the file here or choose it.',
    uploadButton: 'Choose file',
    uploading: 'Uploading…',
    underReview: 'Receipt under review',
    accepted: 'Receipt accepted',
    rejected: 'Receipt rejected, please upload another',
    tooLarge: 'The file is over 5 MB',
    badType: 'A PDF, JPEG or PNG is needed',
    uploadFailed: 'The receipt could not be uploaded',
    success: 'Payment received. Thank you!',
    expired: 'The time to pay has run out',
    failed: 'The order was cancelled',
    waiting: 'Waiting for your payment',
    notFound: 'Payment page not found',
    notFoundHint: 'Check the link or go back to the shop.',
    appealTitle: 'Have you paid already?',
    appealHint:
      'If you transferred the money, upload the receipt: we will check the payment and credit it. PDF, JPEG or PNG up to 5 MB.',
    appealButton: 'Send the receipt',
    testOrder: 'A test order: no money moves. Do not send real money to these details.',
    sandboxTitle: 'Sandbox',
    outcome_paid: 'Pay (test)',
    outcome_expired: 'Expire',
    outcome_cancelled: 'Cancel',
    outcome_receipt_accepted: 'Accept the receipt',
    outcome_receipt_rejected: 'Reject the receipt',
    outcome_payout_sent: 'Payout sent',
    outcome_payout_failed: 'Payout failed',
    appealOpen: 'Receipt received; the payment is being checked. Answer by',
    appealAccepted: 'Payment confirmed. Thank you!',
    appealRejected: 'The payment was not confirmed',
    appealBusy: 'A receipt is under review already',
  },
} as const satisfies Record<Lang, Record<string, string>>;

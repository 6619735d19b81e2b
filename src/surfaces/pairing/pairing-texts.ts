import type { Lang } from '../../lib/language.js';

/**
 * The pairing page's words (docs/decisions.md "The pairing page"), Russian and English with the same
 * keys (checked by pairing-texts.test.ts). `{name}` holes are filled by `fill` (src/lib/language.ts).
 */
const ru = {
  title: 'Подключение телефона',
  switchTo: 'English',
  intro: 'Эта страница настраивает телефон «{name}», который пересылает сообщения банка о поступлениях.',
  expires: 'Ссылка действует до {time} (UTC) и только один раз.',
  requisitesTitle: 'Реквизиты этого телефона',
  kind_card: 'Карта',
  kind_phone: 'Телефон (СБП)',
  kind_qr: 'QR-код',
  kind_account: 'Счёт',
  endingKnown: 'Окончание в сообщениях банка: {masks}',
  endingNotNeeded: 'Окончание не нужно: сообщения этого банка о поступлениях его не показывают.',
  endingLabel: 'Последние 4 цифры карты или счёта, которые банк пишет в сообщении о поступлении',
  endingHint: 'Например, 4821 из «карта *4821». Оставьте пустым, если цифр в сообщении нет.',
  appsTitle: 'Что будет настроено',
  appsText:
    'Адреса ниже не секретны. Ключи и токен появятся после нажатия кнопки — один раз, на том устройстве, где вы её нажмёте.',
  claimTitle: 'Получить настройки',
  claimText:
    'Нажмите на телефоне, который будет пересылать сообщения. После этого ссылка перестанет работать.',
  claimButton: 'Получить настройки',
  qrTitle: 'Открыть на телефоне',
  qrText:
    'Открыли страницу на компьютере? Наведите камеру телефона на код: он откроет эту же страницу на телефоне. Код не содержит ключей.',
  qrAlt: 'QR-код со ссылкой на эту страницу',
  setupTitle: 'Настройки телефона «{name}»',
  onceWarning:
    'Сохраните их сейчас: страница показывается один раз. Если закроете её до настройки, попросите оператора выпустить новую ссылку.',
  endingsSaved: 'Сохранены окончания: {list}.',
  smsGatewayTitle: 'SMS Gateway for Android (только SMS; рекомендуем)',
  smsGatewayText:
    'Включите в приложении «Локальный сервер». С компьютера в той же Wi-Fi выполните команды, подставив адрес, логин и пароль с главного экрана приложения. Или введите ключ подписи в Настройки → Вебхуки.',
  smsForwarderTitle: 'SmsForwarder (SMS и уведомления приложения банка)',
  smsForwarderText:
    'Отправители → Webhook: метод POST, адрес, заголовки и тело запроса ниже (одной строкой). Поле «sign» оставьте пустым. Затем правила для SMS и для приложения банка.',
  nativeTitle: 'Другой пересыльщик (пакетный формат)',
  url: 'Адрес',
  signingKey: 'Ключ подписи',
  events: 'События',
  commands: 'Команды',
  method: 'Метод',
  headers: 'Заголовки',
  template: 'Тело запроса',
  secret: 'Секрет подписи',
  token: 'Токен',
  done: 'Готово. Отправьте себе тестовое SMS: оператор увидит телефон в сети.',
  usedTitle: 'Ссылка уже использована',
  usedText:
    'Настройки по этой ссылке уже получены. Если это были не вы, сразу сообщите оператору: он отзовёт ключи и выпустит новую ссылку.',
  expiredTitle: 'Срок ссылки истёк',
  expiredText: 'Ссылка действует 15 минут. Попросите оператора выпустить новую.',
  notFoundTitle: 'Ссылка не найдена',
  notFoundText: 'Проверьте, что ссылка скопирована целиком, или попросите оператора новую.',
  badEndingTitle: 'Проверьте окончание',
  badEndingText: 'Окончание — это 4 цифры из сообщения банка. Ссылка ещё действует: вернитесь и исправьте.',
  tooManyTitle: 'Слишком много запросов',
  tooManyText: 'Подождите минуту и откройте ссылку снова.',
  errorTitle: 'Не получилось',
  errorText: 'Попробуйте ещё раз через минуту. Если не выйдет, сообщите оператору.',
  back: 'Вернуться к ссылке',
  errorCode: 'Код ошибки',
} as const;

export type PairingTexts = { readonly [K in keyof typeof ru]: string };

const en: PairingTexts = {
  title: 'Connect your phone',
  switchTo: 'Русский',
  intro: 'This page sets up the phone “{name}”, which forwards your bank’s messages about incoming money.',
  expires: 'The link works until {time} (UTC), once.',
  requisitesTitle: 'This phone’s requisites',
  kind_card: 'Card',
  kind_phone: 'Phone (SBP)',
  kind_qr: 'QR code',
  kind_account: 'Account',
  endingKnown: 'Ending in the bank’s messages: {masks}',
  endingNotNeeded: 'No ending needed: this bank’s messages about incoming money do not show one.',
  endingLabel: 'The last 4 digits of the card or account your bank writes in a message about incoming money',
  endingHint: 'For example 4821 from “card *4821”. Leave it empty if the message shows no digits.',
  appsTitle: 'What will be set up',
  appsText:
    'The addresses below are not secret. The keys and the token appear after you press the button: once, on the device where you press it.',
  claimTitle: 'Get the settings',
  claimText: 'Press it on the phone that will forward the messages. After that the link stops working.',
  claimButton: 'Get the settings',
  qrTitle: 'Open on the phone',
  qrText:
    'Opened this page on a computer? Point the phone’s camera at the code: it opens this same page on the phone. The code holds no keys.',
  qrAlt: 'QR code with the address of this page',
  setupTitle: 'Settings of the phone “{name}”',
  onceWarning:
    'Save them now: this page is shown once. If you close it before setting the phone up, ask your operator for a new link.',
  endingsSaved: 'Endings saved: {list}.',
  smsGatewayTitle: 'SMS Gateway for Android (SMS only; recommended)',
  smsGatewayText:
    'Switch the app’s Local server on. From a computer on the same Wi-Fi run the commands with the address, login and password the app’s Home screen shows. Or type the signing key in Settings → Webhooks.',
  smsForwarderTitle: 'SmsForwarder (SMS and bank app notifications)',
  smsForwarderText:
    'Senders → Webhook: method POST, the address, headers and request body below (one line). Leave “sign” empty. Then one rule for SMS and one for your bank’s app.',
  nativeTitle: 'Any other forwarder (the batch format)',
  url: 'Address',
  signingKey: 'Signing key',
  events: 'Events',
  commands: 'Commands',
  method: 'Method',
  headers: 'Headers',
  template: 'Request body',
  secret: 'Signing secret',
  token: 'Token',
  done: 'Done. Send yourself a test SMS: your operator will see the phone online.',
  usedTitle: 'This link was used already',
  usedText:
    'The settings of this link were taken already. If that was not you, tell your operator at once: they revoke the keys and issue a new link.',
  expiredTitle: 'This link has expired',
  expiredText: 'A link works for 15 minutes. Ask your operator for a new one.',
  notFoundTitle: 'Link not found',
  notFoundText: 'Check that the whole link was copied, or ask your operator for a new one.',
  badEndingTitle: 'Check the ending',
  badEndingText:
    'An ending is the 4 digits from the bank’s message. The link still works: go back and correct it.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'Wait a minute and open the link again.',
  errorTitle: 'That did not work',
  errorText: 'Try again in a minute. If it still fails, tell your operator.',
  back: 'Back to the link',
  errorCode: 'Error code',
};

export const PAIRING_TEXTS: Readonly<Record<Lang, PairingTexts>> = { ru, en };

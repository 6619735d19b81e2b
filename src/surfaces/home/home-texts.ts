/** The languages of the home page. */
import type { Lang } from '../../lib/language.js';

const ru = {
  title: 'Сервис платёжных ордеров',
  intro: 'Сервер, через который мерчанты принимают платежи и отправляют выплаты.',
  portal: 'Кабинет мерчанта',
  portalHint: 'заказы, выписка, ключи API, события',
  console: 'Консоль операторов',
  consoleHint: 'очереди, заказы, реквизиты, мерчанты',
  docs: 'Документация API',
  docsHint: 'OpenAPI 3.1: каждый метод, подпись запросов, вебхуки',
  json: 'документ OpenAPI (JSON)',
  version: 'Версия',
  switchTo: 'English',
};

/** The home page's words (README "Two commands"), Russian and English. */
export const HOME_TEXTS: Record<Lang, typeof ru> = {
  ru,
  en: {
    title: 'Payment orders service',
    intro: 'The server merchants call to take payments and send payouts.',
    portal: 'Merchant portal',
    portalHint: 'orders, statement, API keys, events',
    console: "Operators' console",
    consoleHint: 'queues, orders, requisites, merchants',
    docs: 'API documentation',
    docsHint: 'OpenAPI 3.1: every operation, request signing, webhooks',
    json: 'the OpenAPI document (JSON)',
    version: 'Version',
    switchTo: 'Русский',
  },
};

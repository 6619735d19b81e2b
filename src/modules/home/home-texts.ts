/** The languages of the home page. */
export type HomeLang = 'ru' | 'en';

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
export const HOME_TEXTS: Record<HomeLang, typeof ru> = {
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

/**
 * The page's language: `?lang=ru|en` wins, else the first of ru/en in Accept-Language by its
 * weight (`q`), else Russian.
 */
export function homeLang(query: unknown, acceptLanguage: unknown): HomeLang {
  if (query === 'ru' || query === 'en') return query;
  if (typeof acceptLanguage !== 'string') return 'ru';
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.split('-')[0], q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((l) => (l.lang === 'ru' || l.lang === 'en') && l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (ranked[0]?.lang as HomeLang | undefined) ?? 'ru';
}

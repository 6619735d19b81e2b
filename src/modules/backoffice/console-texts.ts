import { chooseLang, fill } from '../../lib/language.js';
import { CONSOLE_EN } from './console-texts-en.js';
import { CONSOLE_RU } from './console-texts-ru.js';

/** The console's languages (issue 23 item 6): the operator's choice, remembered; English by default. */
export type ConsoleLang = 'en' | 'ru';

/**
 * The console's catalogue, one per language: the layout, sign-in, dashboard, queues, account,
 * two-factor and the confirmation pages. `{name}` holes are filled by `fill`; a confirmation's changes
 * are one line each.
 */
export const CONSOLE_TEXTS: Record<ConsoleLang, Readonly<Record<keyof typeof CONSOLE_EN, string>>> = {
  en: CONSOLE_EN,
  ru: CONSOLE_RU,
};

/** One language's catalogue. */
export type ConsoleTexts = (typeof CONSOLE_TEXTS)[ConsoleLang];

/** The console language: `?lang=`, then the remembered choice, then Accept-Language; English. */
export function pickConsoleLang(query: unknown, cookie: unknown, acceptLanguage: unknown): ConsoleLang {
  return chooseLang(query, cookie, acceptLanguage, 'en');
}

export { fill };

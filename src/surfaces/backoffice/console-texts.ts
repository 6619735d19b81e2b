import { fill, type Lang } from '../../lib/language.js';
import { CONSOLE_EN } from './console-texts-en.js';
import { CONSOLE_HOLDERS_EN } from './console-texts-holders-en.js';
import { CONSOLE_HOLDERS_RU } from './console-texts-holders-ru.js';
import { CONSOLE_REVIEW_EN } from './console-texts-review-en.js';
import { CONSOLE_REVIEW_RU } from './console-texts-review-ru.js';
import { CONSOLE_RU } from './console-texts-ru.js';
import { CONSOLE_RULES_EN } from './console-texts-rules-en.js';
import { CONSOLE_RULES_RU } from './console-texts-rules-ru.js';
import { CONSOLE_SETUP_EN } from './console-texts-setup-en.js';
import { CONSOLE_SETUP_RU } from './console-texts-setup-ru.js';

/**
 * The console's catalogue, one per language: the layout, sign-in, dashboard, queues, account,
 * two-factor and the confirmation pages, then (the `setup` part) the set-up pages, the messages
 * after an action and error titles, (the `review` part) why a phone's message waits for a person,
 * (the `rules` part) the rules learned from the review queue and (the `holders` part) the holders'
 * pages. `{name}` holes are filled by `fill`; a confirmation's changes are one line each.
 */
export const CONSOLE_TEXTS: Record<
  Lang,
  Readonly<
    Record<
      | keyof typeof CONSOLE_EN
      | keyof typeof CONSOLE_SETUP_EN
      | keyof typeof CONSOLE_REVIEW_EN
      | keyof typeof CONSOLE_RULES_EN
      | keyof typeof CONSOLE_HOLDERS_EN,
      string
    >
  >
> = {
  en: {
    ...CONSOLE_EN,
    ...CONSOLE_SETUP_EN,
    ...CONSOLE_REVIEW_EN,
    ...CONSOLE_RULES_EN,
    ...CONSOLE_HOLDERS_EN,
  },
  ru: {
    ...CONSOLE_RU,
    ...CONSOLE_SETUP_RU,
    ...CONSOLE_REVIEW_RU,
    ...CONSOLE_RULES_RU,
    ...CONSOLE_HOLDERS_RU,
  },
};

/** One language's catalogue. */
export type ConsoleTexts = (typeof CONSOLE_TEXTS)[Lang];

export { fill };

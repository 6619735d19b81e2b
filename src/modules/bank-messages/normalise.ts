/**
 * Normalisation of a bank message before its rules run (docs/decisions.md section 24): the bank's own words
 * arrive with typographic spaces, look-alike letters and several spellings of the rouble, and a
 * rule written for one spelling must match them all.
 */

/** Spaces a bank or a phone may put inside amounts and between words: NBSP, thin, narrow, figure. */
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000\t]/g;
/** Hyphens and dashes that stand for '-' (non-breaking hyphen, figure/en/em dash, minus sign). */
const ODD_HYPHENS = /[\u2010\u2011\u2012\u2013\u2014\u2212]/g;
/** Zero-width characters, never meaningful in a message. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;

/** Latin letters that look like Cyrillic ones, as they appear in mixed-script words. */
const LATIN_TO_CYRILLIC: Record<string, string> = {
  A: 'А',
  B: 'В',
  C: 'С',
  E: 'Е',
  H: 'Н',
  K: 'К',
  M: 'М',
  O: 'О',
  P: 'Р',
  T: 'Т',
  X: 'Х',
  Y: 'У',
  a: 'а',
  c: 'с',
  e: 'е',
  o: 'о',
  p: 'р',
  x: 'х',
  y: 'у',
  k: 'к',
  m: 'м',
};
/** The same look-alikes the other way, for Latin words with a Cyrillic letter in them (`RUВ`). */
const CYRILLIC_TO_LATIN: Record<string, string> = Object.fromEntries(
  Object.entries(LATIN_TO_CYRILLIC).map(([latin, cyrillic]) => [cyrillic, latin]),
);
const MIXED_WORD = /[A-Za-z\u0400-\u04FF]+/g;

/**
 * A word that mixes scripts in the script most of its letters are in: look-alikes become that
 * script's letters (`Пoпoлнeниe` -> Cyrillic, `RUВ` -> `RUB`). A tie goes to Cyrillic.
 */
function oneScript(word: string): string {
  const latin = (word.match(/[A-Za-z]/g) ?? []).length;
  if (latin === 0 || latin === word.length) return word;
  if (latin > word.length - latin) {
    const out = word.replace(/[\u0400-\u04FF]/g, (ch) => CYRILLIC_TO_LATIN[ch] ?? ch);
    if (!/[\u0400-\u04FF]/.test(out)) return out;
  }
  return word.replace(/[A-Za-z]/g, (ch) => LATIN_TO_CYRILLIC[ch] ?? ch);
}

/**
 * The rouble's spellings after an amount (`р`, `р.`, `руб`, `руб.`, `рублей`, `RUB`, `RUR`, `r`, `₽`, `(RUR)`) become
 * `₽` written right after the amount; the lookbehind keeps it to what follows a digit, so `р`
 * inside a word is untouched.
 */
const ROUBLE =
  /(?<=\d) ?(?:₽|\((?:RUB|RUR)\)|руб(?:л(?:ей|я|ь))?\.?|р\.?|RUB|RUR|rub\.?|r\.?)(?![A-Za-z\u0400-\u04FF])/giu;

/**
 * Thousands separators inside an amount (`1 500`, `1,500.00`, `1'500`) joined, decimals kept. The
 * first group never follows `<digit>:`: that is a time's minutes (`Зачисление 14:22 500 р` is
 * 14:22 and 500, not 22500), while a label's colon (`Summa:1 500`) still joins.
 */
const SPACED_THOUSANDS = /(?<![\d.,]|\d:)(\d{1,3})((?:[ '](\d{3}))+)(?=[.,]\d{1,2}(?!\d)|(?!\d))/g;

/** `1,500.00` (comma thousands with a dot decimal) becomes `1500.00`; never after a time's colon. */
const COMMA_THOUSANDS = /(?<![\d.,]|\d:)(\d{1,3})((?:,\d{3})+)(?=\.\d{1,2}(?!\d))/g;

/**
 * Returns the text with one kind of space (single spaces, trimmed), one hyphen, one script in
 * words that mix scripts, `₽` for every spelling of the rouble, and amounts without thousands
 * separators; decimal commas are kept (`parseAmount` reads both).
 */
export function normaliseMessage(text: string): string {
  let out = text.normalize('NFC').replace(ZERO_WIDTH, '').replace(ODD_SPACES, ' ').replace(ODD_HYPHENS, '-');
  out = out.replace(/\r?\n/g, ' ');
  out = out.replace(MIXED_WORD, oneScript);
  out = out.replace(COMMA_THOUSANDS, (_m, head: string, rest: string) => head + rest.replace(/,/g, ''));
  out = out.replace(SPACED_THOUSANDS, (_m, head: string, rest: string) => head + rest.replace(/[ ']/g, ''));
  out = out.replace(ROUBLE, '₽');
  return out.replace(/ {2,}/g, ' ').trim();
}

/**
 * An amount as matched by a rule's group (digits, optional decimal comma or dot, spaces already
 * joined by `normaliseMessage`) as a decimal string with a dot: `1500,5` -> `1500.5`. Returns
 * undefined for anything else (never guesses).
 */
export function parseAmount(group: string | undefined): string | undefined {
  if (!group) return undefined;
  const text = group.replace(/ /g, '');
  if (!/^\d+(?:[.,]\d{1,2})?$/.test(text)) return undefined;
  return text.replace(',', '.').replace(/^0+(?=\d)/, '');
}

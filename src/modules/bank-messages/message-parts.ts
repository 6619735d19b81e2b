/**
 * Reading a bank message by the parts every bank's notice has (docs/decisions.md "Bank messages:
 * how they are read and when they credit"): the direction (a word or a sign), the amount with its
 * currency, the card or account ending, the balance, the counterparty and the time. Pure: the text
 * is already normalised (normalise.ts); per-bank data only adds direction words a bank uses alone.
 *
 * The payer's comment ("Сообщение: ...", a quoted text) is cut off first: nothing in it is evidence
 * of a direction, an amount or a block.
 */

/** Which way money moved, by the evidence the text shows. */
export type Direction = 'in' | 'out' | 'none' | 'both';

/** What a text without money movement is. */
export type Noise = 'otp' | 'ad' | 'balance' | 'info';

/** A bank's own direction words where it differs from the others (bank-rule.ts `BankFormat`). */
export interface DirectionHints {
  incoming?: readonly RegExp[];
  outgoing?: readonly RegExp[];
}

/** The parts of one message. Amounts are decimal strings with a dot, in currency units. */
export interface MessageParts {
  /** The text without the payer's comment. */
  body: string;
  /** The payer's comment, when the text marks one. */
  comment?: string;
  direction: Direction;
  /** Every money amount of the body that is not a balance, a fee or a limit, in order. */
  amounts: string[];
  /** ISO 4217 code of the first amount. */
  currency?: string;
  mask?: string;
  balance?: string;
  payer?: string;
  time?: string;
  /** The text is the bank's own notice of a block or suspension (not a transfer's words). */
  block: boolean;
  /** What the text is when it moves no money; undefined when it shows a movement or an amount. */
  noise?: Noise;
}

/** Where the payer's own words start: a marker, or a quoted text. */
const COMMENT_MARKER =
  /(?:^|[ .,;])(?:сообщение(?: от отправителя| отправителя)?|комментарий(?: отправителя)?|коммент|назначение(?: платежа)?|текст|soobshchenie|kommentariy)\s*[:-]/iu;
const QUOTED = /«[^»]*»|"[^"]*"|“[^”]*”|'[^']*'/gu;

/** A money amount after normalisation: an optional sign, digits, optional decimals, a currency. */
const MONEY =
  /(?<![\d.,:])(?<sign>[+-] ?)?(?<num>\d+(?:[.,]\d{1,2})?) ?(?<cur>₽|USD|EUR|\$|€|KZT|BYN)(?![A-Za-z])/giu;
/** Words before an amount that make it a balance, a fee, a limit or a bonus rather than the movement. */
const LABELLED =
  /(?:баланс|остат|ост\.|доступн|дост\.|balans|ostatok|dostupno|лимит|limit|комисси|komissi|кэшбэк|кешбэк|cashback|бонус)[а-яёa-z]*\.?(?: [а-яёa-z*\d]+){0,3}:? ?$/iu;
const BALANCE_LABEL =
  /(?:баланс|остат|ост\.|доступн|дост\.|balans|ostatok|dostupno)[а-яёa-z]*\.?(?: [а-яёa-z*\d]+){0,3}:? ?$/iu;

const INCOMING: readonly RegExp[] = [
  /зачисл[а-я]*/iu,
  /поступ[а-я]*/iu,
  /пополн[а-я]*/iu,
  /входящ[а-я]* перевод/iu,
  /перевод(?: по сбп| сбп)? (?:от|из)\s/iu,
  /вам перев[её]л/iu,
  /перев[её]л(?:\(а\)|а)? вам/iu,
  /получен[а-я]* перевод|перевод получен/iu,
  /(?:zachislen|postuplen|popolnen|perevod ot)[a-z]*/iu,
  /(?:^|[ (:;])\+ ?\d+(?:[.,]\d{1,2})? ?(?:₽|USD|EUR|\$|€)/u,
  /\d ?₽\.?,? от [^\d\s]/iu,
];

const OUTGOING: readonly RegExp[] = [
  /списан[а-я]*/iu,
  /покупк[а-я]*/iu,
  /оплат[а-я]*/iu,
  /перевод (?:на|для|по реквизитам)\s/iu,
  /снят[а-я]*/iu,
  /выдач[а-я]*/iu,
  /вы перевели|отправлен[а-я]* перевод|исходящ[а-я]*/iu,
  /(?:spisan|pokupka|oplata|snyatie|vydacha)[a-z]*/iu,
  /(?:^|[ (:;])- ?\d+(?:[.,]\d{1,2})? ?(?:₽|USD|EUR|\$|€)/u,
];

const BLOCK =
  /(?:карт|сч[её]т|операци|доступ|karta|schet)[^.]{0,60}?(?:заблокирован|приостановлен|ограничен|zablokirovan|priostanovlen)|(?:115|161)-ФЗ/iu;
const OTP = /(?:код|пароль|code|kod|parol)[^\d₽]{0,30}\d{4,8}(?![\d₽])/iu;
const AD =
  /кэшбэк|кешбэк|cashback|акци[яи]|скидк|предлага|одобрен|оформ(?:ите|ить)|кредит|вклад|ставк|подробнее|бонус|промокод|розыгрыш|выгод|%/iu;
const MASK =
  /(?:\*|•|СЧ[ЁЕ]Т ?\*?|(?:MIR|МИР|VISA|ECMC|MAES|Card|Karta|Карта|карту|карте|счет|счёт|счета|счету|счёта|счёту)[- ]?\*{0,2})(?<mask>\d{4})(?!\d)/iu;
const PAYER = /(?:^|[ .,;])(?:от|ot) (?<payer>[А-ЯЁA-Z][^.;,\d₽]*?)(?=[.;,]| по | через | на |$)/u;
const TIME = /(?<![\d:])(?<time>[0-2]?\d:[0-5]\d)(?![\d:])/u;

const CURRENCY: Record<string, string> = { '₽': 'RUB', $: 'USD', '€': 'EUR' };
const decimal = (num: string) => num.replace(',', '.').replace(/^0+(?=\d)/, '');

/** The text cut at the payer's comment, and quoted words removed. */
export function splitComment(text: string): { body: string; comment?: string } {
  const marker = COMMENT_MARKER.exec(text);
  const head = marker ? text.slice(0, marker.index) : text;
  const quoted = head.match(QUOTED) ?? [];
  const body = head.replace(QUOTED, ' ').replace(/ {2,}/g, ' ').trim();
  const comment = [...quoted, marker ? text.slice(marker.index) : ''].join(' ').trim();
  return comment ? { body, comment } : { body };
}

/** The direction the evidence in `body` shows (both: evidence of each, none: of neither). */
export function directionOf(body: string, hints: DirectionHints = {}): Direction {
  const has = (list: readonly RegExp[]) => list.some((re) => re.test(body));
  const incoming = has(INCOMING) || has(hints.incoming ?? []);
  const outgoing = has(OUTGOING) || has(hints.outgoing ?? []);
  if (incoming && outgoing) return 'both';
  if (incoming) return 'in';
  return outgoing ? 'out' : 'none';
}

/** The money amounts of `body`: movements (in order) and the first balance. */
function amountsOf(body: string): { amounts: string[]; currency?: string; balance?: string } {
  const amounts: string[] = [];
  let currency: string | undefined;
  let balance: string | undefined;
  for (const m of body.matchAll(MONEY)) {
    const groups = m.groups as { sign?: string; num: string; cur: string };
    const before = body.slice(Math.max(0, (m.index ?? 0) - 40), m.index);
    if (LABELLED.test(before)) {
      if (balance === undefined && BALANCE_LABEL.test(before)) balance = decimal(groups.num);
      continue;
    }
    amounts.push(decimal(groups.num));
    currency ??= CURRENCY[groups.cur] ?? groups.cur.toUpperCase();
  }
  return { amounts, ...(currency ? { currency } : {}), ...(balance ? { balance } : {}) };
}

/** A one-time code or an ad, by its words. */
const codeOrAd = (body: string): Noise | undefined =>
  OTP.test(body) ? 'otp' : AD.test(body) ? 'ad' : undefined;

/** What a text that shows no direction is. */
function noiseOf(body: string, hasAmount: boolean, hasBalance: boolean): Noise | undefined {
  const named = codeOrAd(body);
  if (named || hasAmount) return named;
  return hasBalance ? 'balance' : 'info';
}

/**
 * The parts of a normalised message. A block is the bank's own notice: its words in the body (not
 * the comment), with no incoming evidence and no money amount in the text (a transfer that carries
 * the words is a transfer). Noise is named for a text with no direction (a code, an ad, a balance,
 * other info) and for one with a direction word but no amount (a code or an ad only).
 */
export function readParts(text: string, hints: DirectionHints = {}): MessageParts {
  const { body, comment } = splitComment(text);
  const direction = directionOf(body, hints);
  const money = amountsOf(body);
  const mask = MASK.exec(body)?.groups?.mask;
  const payer = direction === 'in' ? PAYER.exec(body)?.groups?.payer?.trim() : undefined;
  const time = TIME.exec(body)?.groups?.time;
  const block = BLOCK.test(body) && direction !== 'in' && direction !== 'both' && money.amounts.length === 0;
  const hasAmount = money.amounts.length > 0;
  const noise = block
    ? undefined
    : direction === 'none'
      ? noiseOf(body, hasAmount, !!money.balance)
      : hasAmount
        ? undefined
        : codeOrAd(body);
  return {
    body,
    ...(comment ? { comment } : {}),
    direction,
    ...money,
    ...(mask ? { mask } : {}),
    ...(payer ? { payer } : {}),
    ...(time ? { time } : {}),
    block,
    ...(noise ? { noise } : {}),
  };
}

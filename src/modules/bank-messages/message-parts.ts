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
  /**
   * The text shows money coming in and an amount, but says the operation was declined, cancelled,
   * returned, not credited or suspended, or only asks to confirm a transfer: never a credit, kept
   * for an operator (docs/bank-messages.md "What the kinds mean": `other`).
   */
  undone?: true;
  /**
   * Money in that is the bank's or the holder's own (interest, cashback, a benefit or pension, money
   * from the holder's deposit): read as a credit, never a payer's transfer (docs/decisions.md
   * section 58).
   */
  bankOwn?: true;
  /** What the text is when it moves no money; undefined when it shows a movement or an amount. */
  noise?: Noise;
}

/** Where the payer's own words start: a marker, or a quoted text. */
const COMMENT_MARKER =
  /(?:^|[ .,;])(?:сообщение(?: от отправителя| отправителя)?|комментарий(?: отправителя)?|коммент|назначение(?: платежа)?|текст|soobshchenie|kommentariy)\s*[:-]/iu;
const QUOTED = /«[^»]*»|"[^"]*"|“[^”]*”|'[^']*'/gu;

/** A money amount after normalisation: an optional sign, digits, optional decimals, a currency. */
const MONEY =
  /(?<![\d.,])(?<sign>[+➕-] ?)?(?<num>\d+(?:[.,]\d{1,2})?) ?(?<cur>₽|USD|EUR|\$|€|KZT|BYN)(?![A-Za-z])/giu;
/** Words before an amount that make it a balance, a fee, a limit or a bonus rather than the movement. */
const LABELS = String.raw`(?:bal|баланс|остат|ост\.|доступн|дост\.|balans|balance|ostatok|dostupn|лимит|limit|комисси|komissi|кэшбэк|кешбэк|cashback|бонус|можно тратить|теперь у (?:вас|тебя)|теперь на (?:сч[её]те|карте)|ещ[её] есть|в запасе|сумма вклада|summa vklada|собственные средства|sobstv|кредит|kredit|kred\.|долг|ispolzovano|использовано|из них|💳)`;
const AFTER_LABEL = String.raw`[а-яёa-z]*\.?:?(?: [а-яёa-z*•\d.]+){0,3}:? ?\(?$`;
const LABELLED = new RegExp(LABELS + AFTER_LABEL, 'iu');
const BALANCE_LABEL = new RegExp(
  String.raw`(?:баланс|остат|ост\.|доступн|дост\.|balans|balance|ostatok|dostupn|можно тратить|теперь у (?:вас|тебя)|теперь на (?:сч[её]те|карте)|ещ[её] есть|в запасе|💳)` +
    AFTER_LABEL,
  'iu',
);

const INCOMING: readonly RegExp[] = [
  /зачисл[а-я]*/iu,
  /поступ[а-я]*/iu,
  /пополн[а-я]*/iu,
  /внес(?:ен|л)[а-я]*/iu,
  /приход/iu,
  /зарплат|заработн/iu,
  /входящ[а-я]* перевод/iu,
  /перевод(?: по сбп| сбп)? (?:от|из)\s/iu,
  /вам (?:перев[её]л|пришёл перевод|пришел перевод)|доставлен перевод/iu,
  /компенсаци[яи]|возмещени[ея]/iu,
  /перев[её]л(?:\(а\)|а)? вам/iu,
  /получен[а-я]* перевод|перевод получен/iu,
  /баланс[а-я\d ]* увеличен|увеличен баланс/iu,
  /(?:zachisl|postup|popoln|vnesen|prihod|poluchen perevod|perevod ot|uvelichen balans|zarplat|zarabotn)[a-z]*/iu,
  /cash-in/iu,
  /\d ?₽\.?,? от [^\d\s]/iu,
];

const OUTGOING: readonly RegExp[] = [
  /списан[а-я]*/iu,
  // "на покупках" (an ad's "earn on purchases") names no purchase.
  /покупк(?!ах|ам)[а-я]*/iu,
  /оплат[а-я]*/iu,
  /перевод (?:на|для|по реквизитам)\s/iu,
  /снят[а-я]*/iu,
  /выдач[а-я]*/iu,
  /вы перевели|отправлен[а-я]* перевод|исходящ[а-я]*/iu,
  /(?:spisan|pokupka|oplata|snyatie|vydacha|perevod na)[a-z]*/iu,
  // Money moved to the holder's own savings: a piggy bank, a deposit, a savings account ("пополнение
  // Копилки", "пополнить Копилку").
  /(?:пополнени[ея]|пополнить|на|в) (?:сч[её]т )?(?:копилк|вклад|накопительн|сберегательн)/iu,
  /(?:^|[ .:;])(?:вклад|vklad)[а-яa-z]*/iu,
  // A loan or instalment repaid.
  /погаш[а-я]*|pogash[a-z]*/iu,
];

/**
 * The bank's own money and the holder's own: interest, a deposit's money, cashback, a benefit or
 * pension. Money in, but never a payer's transfer (docs/decisions.md section 58).
 */
const BANK_OWN_PHRASES: readonly RegExp[] = [
  // Interest paid to the holder; interest charged on a loan or a debt is not ("начислены проценты по
  // кредиту").
  /(?:выплат[а-я]*|перечислени[а-я]*|начислен[а-я]*|выплачен[а-я]*|зачислил[а-я]*|капитализаци[а-я]*) (?:на )?процент[а-я]*(?: (?:по|на) вклад[а-я]*)?(?![^.]{0,40}(?:кредит|займ|долг|задолж|просроч))/iu,
  /процент[а-я]* по вклад[а-я]*|капитализаци[а-я]*|vyplata protsentov(?: po vkladu)?/iu,
  /(?:зачисл|начисл)[а-я]*(?: [^ ]+){0,3}? на вклад[а-я]*/iu,
  /(?:зачислен|начислен|выплат)[а-я]* (?:[а-я]+ )?(?:кэшб|кешб|cashback)[а-яa-z]*/iu,
  /выплат[а-я]* (?:пособи|пенси|стипенди)[а-я]*|vyplata (?:posobi|pensi)[a-z]*/iu,
];

/**
 * Incoming phrases that carry a word which alone would read as outgoing ("вклад", "кэшбэк"): money
 * taken from the holder's deposit onto the card, a deposit's interest, a deposit credited, cashback
 * or a benefit paid. They count as incoming evidence and are taken out before outgoing words are
 * looked for, as a bank's own incoming words are.
 */
const INCOMING_PHRASES: readonly RegExp[] = [
  ...BANK_OWN_PHRASES,
  // "Пришел перевод на счет *4848": the transfer came to the holder's account.
  /(?:приш[её]л|пришла|поступил[а-я]*) (?:перевод|зарплата|деньги)(?: на (?:сч[её]т|карту))?/iu,
];

/** Money from the holder's own deposit or savings ("зачисление 10000р с Вашего вклада"). */
const OWN_DEPOSIT =
  /(?:^|[ .,;])(?:с|со|из) (?:вашего |своего )?(?:вклада|накопительного сч[её]та)|so vklada/iu;

/**
 * Words that name a deposit without saying which way money moved: its total ("Сумма вклада 894.09
 * р.") and where money came from ("зачисление 10000р с Вашего вклада": the incoming evidence is
 * "зачисление"; "Перевод 5000р со вклада" alone shows none).
 */
const NEUTRAL_PHRASES: readonly RegExp[] = [/(?:сумма|summa) (?:вклада|vklada)/iu, OWN_DEPOSIT];

/** Words before a bonus's label that make the bonus paid money, the movement ("зачислен кэшбэк"). */
const PAID_BONUS =
  /(?:зачислен|начислен|выплат)[а-я]* (?:[а-я]+ )?(?:кэшб|кешб|cashback)[а-яa-z]*[^\d]{0,30}$/iu;

/** Words between a balance's label and an amount that make the amount the movement. */
const GROWN = /увеличен|уменьшен|пополнил|uvelichen|popolnil/iu;

/**
 * `ё` read as `е` for the words that say an operation did not happen: banks write both (`отклонён`,
 * `отклонен`), and the words below are written with `е` only. Only these checks read the folded
 * text; amounts, endings and names are read from the text as it is.
 */
const foldYo = (text: string) => text.replace(/ё/g, 'е').replace(/Ё/g, 'Е');

/** An operation that did not happen (or waits for the bank's call): no money moved. */
const FAILED =
  /не удалось|не выполнен|отклонен|отказ(?:ано)? в|недостаточно средств|нужно доп(?:олнительное|\.)? ?подтверждение|otkaz|otklonen/iu;

/**
 * Words that undo a movement or show none yet: cancelled (`отмена`, `отменено`), returned or refunded
 * (`возврат`, `возвращен`: money a merchant returns is not a payment to the holder), not credited or
 * not received, suspended, and a request to confirm a transfer or a debit (Sberbank's "Поступил
 * запрос на перевод 2900р из СберБанка в другой банк": the holder is asked to send money). Alone
 * they decide nothing; with incoming evidence and an amount they make the text `undone`.
 */
const UNDONE = new RegExp(
  [
    'отмен[а-я]*|возврат[а-я]*|возвращ[а-я]*|не зачисл[а-я]*|не поступ[а-я]*|приостановлен[а-я]*',
    'запрос[а-я]* на (?:перевод|списани|оплат)|запрос[а-я]*.{0,60}? в другой банк',
    'otmen[a-z]*|vozvrat[a-z]*|ne zachislen[a-z]*|ne postup[a-z]*',
  ].join('|'),
  'iu',
);

const BLOCK =
  /(?:карт|сч[её]т|операци|доступ|karta|schet)[^.]{0,60}?(?:заблокирован|приостановлен|ограничен|zablokirovan|priostanovlen)|(?:115|161)-ФЗ/iu;
const OTP = /(?:код|пароль|code|kod|parol)[^\d₽]{0,30}\d{4,8}(?![\d₽])/iu;
const AD =
  /кэшбэк|кешбэк|cashback|акци[яи]|скидк|предлага|одобрен|оформ(?:ите|ить)|кредит|вклад|ставк|подробнее|бонус|промокод|розыгрыш|выгод|%/iu;
/** A card or account ending: after `*`/`•`, after a card, account or contract word, or a leading card name. */
const MASKS: readonly RegExp[] = [
  /[*•#]{1,4} ?\d*?(?<mask>\d{4})(?!\d)/u,
  /(?:MIR|МИР|VISA|ECMC|MAES|MC|Card|Karta|Карт[аеуы]|СЧ[ЁЕ]Т|сч[её]т[а-я]*|schet[a-z]*|договор[а-я]*|контракт[а-я]*|вклад[а-я]*|kontrakt|dogovor[a-z]*)[- :]*(?:№ ?)?[\d*]*?(?<mask>\d{4})(?![\d*]|[.,]\d|\s?₽)/iu,
  /^(?:[A-Za-zА-ЯЁа-яё]+ )*[A-Za-zА-ЯЁа-яё]+-?(?<mask>\d{4})(?![\d:.])/u,
  // Some banks show three digits after the stars ("Schet A*891", "40817***539").
  /[*•#]{1,4}(?<mask>\d{3})(?![\d.,])/u,
];
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

/**
 * The direction the evidence in `body` shows (both: evidence of each, none: of neither). A sign
 * counts only on a movement amount (`signs`, not a balance's). A bank's own incoming words are
 * taken out before outgoing words are looked for (MTS Bank's "Перевод на карту" is money in).
 */
export function directionOf(
  body: string,
  hints: DirectionHints = {},
  signs: { plus: boolean; minus: boolean } = { plus: false, minus: false },
): Direction {
  const has = (text: string, list: readonly RegExp[]) => list.some((re) => re.test(text));
  const own = hints.incoming ?? [];
  const rest = [...INCOMING_PHRASES, ...NEUTRAL_PHRASES, ...own].reduce(
    (text, re) => text.replace(new RegExp(re.source, 'giu'), ' '),
    body,
  );
  const incoming = signs.plus || has(body, INCOMING) || has(body, INCOMING_PHRASES) || has(body, own);
  const outgoing = signs.minus || has(rest, OUTGOING) || has(rest, hints.outgoing ?? []);
  if (incoming && outgoing) return 'both';
  if (incoming) return 'in';
  return outgoing ? 'out' : 'none';
}

/** The money amounts of `body`: movements (in order), their signs, and the first balance. */
function amountsOf(body: string) {
  const amounts: string[] = [];
  const signs = { plus: false, minus: false };
  let currency: string | undefined;
  let balance: string | undefined;
  for (const m of body.matchAll(MONEY)) {
    const groups = m.groups as { sign?: string; num: string; cur: string };
    const before = body.slice(Math.max(0, (m.index ?? 0) - 40), m.index);
    // "Баланс карты увеличен на 500 р." names the movement, not a balance.
    if (LABELLED.test(before) && !GROWN.test(before.slice(-30)) && !PAID_BONUS.test(before)) {
      if (balance === undefined && BALANCE_LABEL.test(before)) balance = decimal(groups.num);
      continue;
    }
    amounts.push(decimal(groups.num));
    if (groups.sign?.startsWith('+') || groups.sign?.startsWith('➕')) signs.plus = true;
    // A minus is a sign when attached or when it opens the text: " - 1 562 ₽" after a word is a
    // dash between parts.
    const opens = before.trim() === '' && (m.index ?? 0) < 3;
    if (groups.sign?.startsWith('-') && (groups.sign === '-' || opens) && /(?:^|[ (:;])$/.test(before))
      signs.minus = true;
    currency ??= CURRENCY[groups.cur] ?? groups.cur.toUpperCase();
  }
  return { amounts, signs, ...(currency ? { currency } : {}), ...(balance ? { balance } : {}) };
}

/** The first card or account ending the body shows (the earliest of the mask patterns). */
function maskOf(body: string): string | undefined {
  let best: { at: number; mask: string } | undefined;
  for (const re of MASKS) {
    const m = re.exec(body);
    if (m?.groups?.mask && (!best || m.index < best.at)) best = { at: m.index, mask: m.groups.mask };
  }
  return best?.mask;
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
 * the words is a transfer). An operation that failed moved nothing (noise), unless the text shows
 * money coming in and an amount: then it, like a cancelled, returned, not credited or requested one
 * (`UNDONE`), is `undone` with no direction, for an operator (docs/bank-messages.md "What the kinds
 * mean"; the project's rule: when unsure, never credit). Noise is named for a text with no direction
 * (a code, an ad, a balance, other info) and for one with a direction word but no amount (a code or
 * an ad only).
 */
export function readParts(text: string, hints: DirectionHints = {}): MessageParts {
  const { body, comment } = splitComment(text);
  const { signs, ...money } = amountsOf(body);
  const hasAmount = money.amounts.length > 0;
  const words = foldYo(body);
  const failed = FAILED.test(words);
  const moved = directionOf(body, hints, signs);
  // Incoming words with an amount next to words that undo them: a payer may say they paid.
  const undone = (failed || UNDONE.test(words)) && moved === 'in' && hasAmount;
  const direction = failed || undone ? 'none' : moved;
  const mask = maskOf(body);
  const payer = direction === 'in' ? PAYER.exec(body)?.groups?.payer?.trim() : undefined;
  const time = TIME.exec(body)?.groups?.time;
  const block = BLOCK.test(body) && direction !== 'in' && direction !== 'both' && !hasAmount;
  const bankOwn =
    direction === 'in' && (BANK_OWN_PHRASES.some((re) => re.test(body)) || OWN_DEPOSIT.test(body));
  const noise =
    block || undone
      ? undefined
      : failed
        ? 'info'
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
    ...(undone ? { undone: true as const } : {}),
    ...(bankOwn ? { bankOwn: true as const } : {}),
    ...(noise ? { noise } : {}),
  };
}

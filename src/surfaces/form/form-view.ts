import { fill } from '../../lib/language.js';
import { formatFiat, networkName } from './form-format.js';
import type { FormService } from './form-service.js';
import type { FormTexts, Lang } from './form-texts.js';

/** What `FormService.page` gives the page. */
export type FormPage = Awaited<ReturnType<FormService['page']>>;

/**
 * The payer-facing words of a form page in one language (docs/decisions.md section 31): the amount as the payer reads it
 * (`Intl`, or the crypto amount with its own decimals), the network warning, the RUB amount and rate
 * of a crypto order, the "back to the shop" label, the appeal deadline in Moscow time, and the link
 * to the other language.
 */
export function formView(p: FormPage, t: FormTexts, lang: Lang) {
  const crypto = p.kind === 'crypto';
  const amountText = crypto
    ? p.cryptoAmount
      ? `${p.cryptoAmount} ${p.coin}`
      : `— ${p.coin}`
    : formatFiat(p.amount, p.currency, t);
  const rateText = crypto && p.fiat ? `1 ${p.coin} = ${formatFiat(p.fiat.rate, 'RUB', t)}` : null;
  const fiatText = crypto && p.fiat ? formatFiat(p.fiat.amount, 'RUB', t) : null;
  const other: Lang = lang === 'ru' ? 'en' : 'ru';
  return {
    amountText,
    rateText,
    fiatText,
    networkWarning: crypto ? fill(t.networkWarning, { coin: p.coin, network: networkName(p.network) }) : null,
    networkName: crypto ? networkName(p.network) : null,
    returnLabel: p.merchantName ? fill(t.returnTo, { name: p.merchantName }) : t.returnToShop,
    deadline:
      !crypto && p.appeal
        ? `${new Intl.DateTimeFormat(t.locale, {
            dateStyle: 'medium',
            timeStyle: 'short',
            timeZone: 'Europe/Moscow',
          }).format(new Date(p.appeal.deadline_at))} ${t.moscowTime}`
        : null,
    otherLang: other,
    otherLangHref: `/form/${encodeURIComponent(p.id)}?lang=${other}`,
  };
}

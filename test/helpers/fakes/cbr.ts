// A loopback fake of the Central Bank of Russia's daily rates, "Получение данных, используя XML":
//   https://www.cbr.ru/development/SXML/ -> GET /scripts/XML_daily.asp
//   200 application/xml, windows-1251: <?xml version="1.0" encoding="windows-1251"?>
//   <ValCurs Date="dd.mm.yyyy" name="Foreign Currency Market"><Valute ID="R01335"><NumCode>398</NumCode>
//   <CharCode>KZT</CharCode><Nominal>100</Nominal><Name>Казахстанских тенге</Name><Value>17,1234</Value>
//   <VunitRate>0,171234</VunitRate></Valute>...</ValCurs> (rubles for Nominal units, decimal comma).
import { startRateFake } from './rate-fake.js';

/** One Valute: code, nominal, value with a decimal comma ("17,1234"), Russian name. */
export interface CbrValute {
  id: string;
  numCode: string;
  code: string;
  nominal: number;
  name: string;
  value: string;
}

/** The currencies of a real answer that our tests use (values made up). */
export const CBR_VALUTES: CbrValute[] = [
  { id: 'R01235', numCode: '840', code: 'USD', nominal: 1, name: 'Доллар США', value: '91,2345' },
  { id: 'R01335', numCode: '398', code: 'KZT', nominal: 100, name: 'Казахстанских тенге', value: '17,1234' },
  { id: 'R01370', numCode: '417', code: 'KGS', nominal: 10, name: 'Киргизских сомов', value: '10,4567' },
  { id: 'R01717', numCode: '860', code: 'UZS', nominal: 10000, name: 'Узбекских сумов', value: '72,9876' },
];

/** windows-1251 bytes of `text` (ASCII and Cyrillic А-я, Ё, ё: all an answer holds). */
export function encodeWindows1251(text: string): Buffer {
  const out: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0x3f;
    if (c < 0x80) out.push(c);
    else if (c >= 0x410 && c <= 0x44f) out.push(c - 0x410 + 0xc0);
    else if (c === 0x401) out.push(0xa8);
    else if (c === 0x451) out.push(0xb8);
    else out.push(0x3f);
  }
  return Buffer.from(out);
}

/** The XML_daily text of `valutes` for `date` (dd.mm.yyyy). */
export function cbrXml(valutes: CbrValute[], date = '21.05.2026'): string {
  const body = valutes
    .map((v) => {
      const unit = (Number(v.value.replace(',', '.')) / v.nominal).toFixed(6).replace('.', ',');
      return `<Valute ID="${v.id}"><NumCode>${v.numCode}</NumCode><CharCode>${v.code}</CharCode><Nominal>${v.nominal}</Nominal><Name>${v.name}</Name><Value>${v.value}</Value><VunitRate>${unit}</VunitRate></Valute>`;
    })
    .join('');
  return `<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="${date}" name="Foreign Currency Market">${body}</ValCurs>`;
}

/** Starts the fake answering `valutes` (changeable). */
export async function startCbrFake(initial: CbrValute[] = CBR_VALUTES) {
  const valutes = [...initial];
  const fake = await startRateFake('/scripts/XML_daily.asp', () => ({
    body: encodeWindows1251(cbrXml(valutes)),
    contentType: 'application/xml; charset=windows-1251',
  }));
  return Object.assign(fake, { valutes });
}

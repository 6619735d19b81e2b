// A loopback fake of Rapira's public market rates (no account):
//   GET https://api.rapira.net/open/market/rates (docs: https://docs.rapira.net, shape as its public
//   clients read it): 200 {"code":0,"message":"SUCCESS","data":[{"symbol":"USDT/RUB",
//   "baseCurrency":"RUB","quoteCurrency":"USDT","close":80.11,"askPrice":80.12,"bidPrice":80.11,...}],
//   "totalPage":null,"totalElement":null,"isWorking":1}
import { startRateFake } from './rate-fake.js';

/** One ticker row: `symbol` "USDT/RUB", prices as JSON numbers written as given. */
export interface RapiraTicker {
  symbol: string;
  bid?: string;
  ask?: string;
  close: string;
}

/** Starts the fake with `tickers` (changeable: push, splice). */
export async function startRapiraFake(initial: RapiraTicker[] = []) {
  const tickers = [...initial];
  const fake = await startRateFake('/open/market/rates', () => {
    const rows = tickers.map((t) => {
      const [base, quote] = t.symbol.split('/');
      const book = `${t.ask !== undefined ? `"askPrice":${t.ask},` : ''}${t.bid !== undefined ? `"bidPrice":${t.bid},` : ''}`;
      return `{"symbol":"${t.symbol}","open":${t.close},"high":${t.close},"low":${t.close},"close":${t.close},${book}"chg":0,"change":0,"fee":0.1,"baseCurrency":"${quote}","quoteCurrency":"${base}","coinScale":2,"baseCoinScale":2}`;
    });
    return {
      body: `{"data":[${rows.join(',')}],"code":0,"message":"SUCCESS","totalPage":null,"totalElement":null,"isWorking":1}`,
      contentType: 'application/json',
    };
  });
  return Object.assign(fake, { tickers });
}

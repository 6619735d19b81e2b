import { createHash } from 'node:crypto';
import type { CryptoMethod } from '../../modules/catalog/index.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `count` characters of `alphabet` derived from an order id: the same test order, the same address. */
function chars(seed: string, alphabet: string, count: number): string {
  const hash = createHash('sha256').update(`${seed}:chars`).digest();
  let out = '';
  for (let i = 0; out.length < count; i++)
    out += alphabet[((hash[i % hash.length] ?? 0) + i) % alphabet.length];
  return out;
}

/**
 * A generated deposit address of a sandbox crypto PAYIN (docs/decisions.md section 29), shaped like
 * the network's (0x + 40 hex on EVM, T + 33 base58 on TRON, testnet bech32 on Bitcoin and Litecoin,
 * a 48-character user-friendly form on TON). It belongs to no wallet of ours and no watcher looks at
 * it: coins sent to it are lost, which the form of a test order says.
 */
export function sandboxDepositAddress(method: Pick<CryptoMethod, 'keyNetwork'>, orderId: string): string {
  switch (method.keyNetwork) {
    case 'evm':
      return `0x${createHash('sha256').update(orderId).digest('hex').slice(0, 40)}`;
    case 'tron':
      return `T${chars(orderId, BASE58, 33)}`;
    case 'btc':
      return `tb1q${chars(orderId, BECH32, 38)}`;
    case 'ltc':
      return `tltc1q${chars(orderId, BECH32, 38)}`;
    default:
      return `kQ${chars(orderId, BASE64URL, 46)}`;
  }
}

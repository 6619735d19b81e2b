import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import type { KeyNetwork } from '../../modules/catalog/index.js';

const base58check = createBase58check(sha256);

/** Extended public key version bytes we accept, per network (SLIP-132). */
const PUBLIC_VERSIONS: Record<Exclude<KeyNetwork, 'ton'>, number[]> = {
  // xpub, zpub
  btc: [0x0488b21e, 0x04b24746],
  // Ltub, zpub (some LTC wallets export BIP84 keys with the BTC zpub prefix), xpub
  ltc: [0x019da462, 0x04b24746, 0x0488b21e],
  evm: [0x0488b21e],
  tron: [0x0488b21e],
};

/** An extended public key that is malformed or of a kind this network does not take. */
export class InvalidExtendedKeyError extends Error {
  override name = 'InvalidExtendedKeyError';
}

/**
 * Parses an account-level extended public key (e.g. the zpub of m/84'/0'/0', or the xpub of
 * m/44'/60'/0' for EVM, m/44'/195'/0' for TRON). Throws InvalidExtendedKeyError.
 */
export function parseExtendedPublicKey(network: Exclude<KeyNetwork, 'ton'>, key: string): HDKey {
  let version: number;
  try {
    const raw = base58check.decode(key.trim());
    if (raw.length !== 78) throw new Error('length');
    version = ((raw[0] ?? 0) << 24) | ((raw[1] ?? 0) << 16) | ((raw[2] ?? 0) << 8) | (raw[3] ?? 0);
    version >>>= 0;
  } catch {
    throw new InvalidExtendedKeyError('not a base58check extended key');
  }
  if (!PUBLIC_VERSIONS[network].includes(version)) {
    throw new InvalidExtendedKeyError(
      `version 0x${version.toString(16)} is not an extended public key for ${network}`,
    );
  }
  try {
    const hd = HDKey.fromExtendedKey(key.trim(), { public: version, private: 0 });
    if (hd.privateKey) throw new InvalidExtendedKeyError('a private key was given; give the public one');
    return hd;
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw err;
    throw new InvalidExtendedKeyError((err as Error).message);
  }
}

function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/** BIP84 native SegWit P2WPKH address: bech32(hrp, [0, program = hash160(pubkey)]). */
export function p2wpkhAddress(hrp: 'bc' | 'ltc', publicKey: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(hash160(publicKey))]);
}

/** The 20-byte account id of EVM and TRON: last 20 bytes of keccak256(uncompressed pubkey without 0x04). */
export function evmAccountBytes(publicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** EIP-55 mixed-case checksum address. */
export function eip55(accountBytes: Uint8Array): string {
  const hex = Buffer.from(accountBytes).toString('hex');
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const c = hex[i] as string;
    out += Number.parseInt(hash[i] as string, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** TRON address: base58check(0x41 || account bytes), `T...`. */
export function tronAddress(accountBytes: Uint8Array): string {
  return base58check.encode(Uint8Array.from([0x41, ...accountBytes]));
}

/**
 * The deposit address at `index` on the external chain (`<account>/0/<index>`) of an account-level
 * key: BTC `bc1q...`, LTC `ltc1q...` (BIP84), EVM EIP-55 `0x...` (BIP44 coin 60), TRON `T...`
 * (BIP44 coin 195; docs/decisions.md section 8).
 */
export function deriveDepositAddress(
  network: Exclude<KeyNetwork, 'ton'>,
  account: HDKey,
  index: number,
): string {
  const child = account.deriveChild(0).deriveChild(index);
  const publicKey = child.publicKey;
  if (!publicKey) throw new InvalidExtendedKeyError('no public key');
  switch (network) {
    case 'btc':
      return p2wpkhAddress('bc', publicKey);
    case 'ltc':
      return p2wpkhAddress('ltc', publicKey);
    case 'evm':
      return eip55(evmAccountBytes(publicKey));
    case 'tron':
      return tronAddress(evmAccountBytes(publicKey));
  }
}

/**
 * The chains the built-in watchers read (issue 20 section 1): names as the admin API takes them, the
 * network orders show, the API family that serves them, the assets and their decimals, and the
 * defaults an operator may override.
 */
export type ChainName = 'ethereum' | 'bsc' | 'tron' | 'ton' | 'bitcoin' | 'litecoin';

/** The network as orders show it (`payment_details.holder_name`; catalog/crypto-methods.ts). */
export type ChainNetwork = 'ERC20' | 'BEP20' | 'TRC20' | 'TON' | 'BTC' | 'LTC';

/** evm: Ethereum JSON-RPC (java-tron serves it too); ton: toncenter API v3; esplora: Esplora REST. */
export type ChainFamily = 'evm' | 'tron' | 'ton' | 'esplora';

export interface ChainAsset {
  /** The coin an order's method names (catalog/crypto-methods.ts `coin`). */
  symbol: 'USDT' | 'BTC' | 'LTC' | 'ETH' | 'BNB' | 'TON';
  /** On-chain decimals: amounts arrive as integers of 10^-decimals. */
  decimals: number;
}

export interface ChainInfo {
  chain: ChainName;
  network: ChainNetwork;
  family: ChainFamily;
  /** The chain's own coin, where orders take it (TRX is not taken). */
  coin: ChainAsset | null;
  /** USDT on this chain: decimals and the mainnet contract / jetton master. */
  token: (ChainAsset & { mainnetContract: string }) | null;
  /** Confirmations before a credit; the payment's own block counts as 1. */
  confirmations: number;
  /** About the chain's block time. */
  pollSeconds: number;
  /** EVM chains: the mainnet chain id that eth_chainId must answer. */
  chainId?: number;
}

/**
 * Facts from each chain's documentation (issue 20): USDT has 6 decimals on Ethereum, TRON and TON and
 * 18 on BNB Smart Chain; ETH and BNB 18, TON 9, BTC and LTC 8. Default confirmations: Ethereum 12,
 * BSC 15, TRON 19, TON 1 (final after one block), Bitcoin 2, Litecoin 6.
 */
export const CHAINS: Record<ChainName, ChainInfo> = {
  ethereum: {
    chain: 'ethereum',
    network: 'ERC20',
    family: 'evm',
    coin: { symbol: 'ETH', decimals: 18 },
    token: { symbol: 'USDT', decimals: 6, mainnetContract: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
    confirmations: 12,
    pollSeconds: 12,
    chainId: 1,
  },
  bsc: {
    chain: 'bsc',
    network: 'BEP20',
    family: 'evm',
    coin: { symbol: 'BNB', decimals: 18 },
    token: { symbol: 'USDT', decimals: 18, mainnetContract: '0x55d398326f99059fF775485246999027B3197955' },
    confirmations: 15,
    pollSeconds: 3,
    chainId: 56,
  },
  tron: {
    chain: 'tron',
    network: 'TRC20',
    family: 'tron',
    coin: null,
    token: { symbol: 'USDT', decimals: 6, mainnetContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
    confirmations: 19,
    pollSeconds: 3,
  },
  ton: {
    chain: 'ton',
    network: 'TON',
    family: 'ton',
    coin: { symbol: 'TON', decimals: 9 },
    token: {
      symbol: 'USDT',
      decimals: 6,
      mainnetContract: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
    },
    confirmations: 1,
    pollSeconds: 5,
  },
  bitcoin: {
    chain: 'bitcoin',
    network: 'BTC',
    family: 'esplora',
    coin: { symbol: 'BTC', decimals: 8 },
    token: null,
    confirmations: 2,
    pollSeconds: 60,
  },
  litecoin: {
    chain: 'litecoin',
    network: 'LTC',
    family: 'esplora',
    coin: { symbol: 'LTC', decimals: 8 },
    token: null,
    confirmations: 6,
    pollSeconds: 30,
  },
};

export const CHAIN_NAMES = Object.keys(CHAINS) as ChainName[];

/** The chain of a name, or undefined (an own key only). */
export function chainInfo(name: string): ChainInfo | undefined {
  return Object.hasOwn(CHAINS, name) ? CHAINS[name as ChainName] : undefined;
}

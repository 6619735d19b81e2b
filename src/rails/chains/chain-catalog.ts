/**
 * The chains the built-in watchers read (docs/decisions.md section 25): names as the admin API takes them, the
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
  /**
   * The mainnet id the URL must serve: eth_chainId on EVM chains and TRON (java-tron answers the
   * genesis hash's last 4 bytes), toncenter's `global_id` on TON.
   */
  chainId?: number;
  /** Bitcoin, Litecoin: the mainnet genesis block hash, which `/block-height/0` must answer. */
  genesisHash?: string;
  /**
   * Requests per second the watcher sends by default (`CHAIN_<CHAIN>_RPS` overrides): the provider's
   * free plan without and with an API key (docs/decisions.md section 34).
   */
  rps: { withoutKey: number; withKey: number };
}

/**
 * Facts from each chain's documentation (docs/decisions.md sections 25 and 34): USDT has 6 decimals
 * on Ethereum, TRON and TON and 18 on BNB Smart Chain; ETH and BNB 18, TON 9, BTC and LTC 8. Default
 * confirmations: Ethereum 12, BSC 15, TRON 19, TON 1 (final after one block), Bitcoin 2, Litecoin 6.
 * Networks: eth_chainId 1 and 56; TRON mainnet 0x2b6653dc (Shasta 0x94a9059e, Nile 0xcd8690dc);
 * TON global_id -239 (testnet -3); the Bitcoin and Litecoin genesis hashes. Request budgets: toncenter
 * allows 1 request a second without a key and 10 on the free plan with one; TronGrid 15 a second
 * with a key and less without; Ethereum/BSC providers and public Esplora instances publish no common
 * figure, so 10 and 5.
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
    rps: { withoutKey: 10, withKey: 10 },
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
    rps: { withoutKey: 10, withKey: 10 },
  },
  tron: {
    chain: 'tron',
    network: 'TRC20',
    family: 'tron',
    coin: null,
    token: { symbol: 'USDT', decimals: 6, mainnetContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
    confirmations: 19,
    pollSeconds: 3,
    chainId: 0x2b6653dc,
    rps: { withoutKey: 5, withKey: 15 },
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
    chainId: -239,
    rps: { withoutKey: 1, withKey: 10 },
  },
  bitcoin: {
    chain: 'bitcoin',
    network: 'BTC',
    family: 'esplora',
    coin: { symbol: 'BTC', decimals: 8 },
    token: null,
    confirmations: 2,
    pollSeconds: 60,
    genesisHash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
    rps: { withoutKey: 5, withKey: 5 },
  },
  litecoin: {
    chain: 'litecoin',
    network: 'LTC',
    family: 'esplora',
    coin: { symbol: 'LTC', decimals: 8 },
    token: null,
    confirmations: 6,
    pollSeconds: 30,
    genesisHash: '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2',
    rps: { withoutKey: 5, withKey: 5 },
  },
};

export const CHAIN_NAMES = Object.keys(CHAINS) as ChainName[];

/** The chain of a name, or undefined (an own key only). */
export function chainInfo(name: string): ChainInfo | undefined {
  return Object.hasOwn(CHAINS, name) ? CHAINS[name as ChainName] : undefined;
}

/** Names of networks a misconfigured URL commonly serves, for the operator's error message. */
const KNOWN_NETWORKS: Record<string, string> = {
  '1': 'Ethereum mainnet',
  '11155111': 'Ethereum Sepolia',
  '17000': 'Ethereum Holesky',
  '560048': 'Ethereum Hoodi',
  '56': 'BNB Smart Chain mainnet',
  '97': 'BNB Smart Chain testnet',
  '728126428': 'TRON mainnet',
  '2494104990': 'TRON Shasta testnet',
  '3448148188': 'TRON Nile testnet',
  '31337': 'a local Anvil or Hardhat node',
  '1337': 'a local Ganache node',
  '-239': 'TON mainnet',
  '-3': 'TON testnet',
  '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f': 'Bitcoin mainnet',
  '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943': 'Bitcoin testnet3',
  '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043': 'Bitcoin testnet4',
  '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6': 'Bitcoin signet',
  '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206': 'Bitcoin regtest',
  '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2': 'Litecoin mainnet',
  '4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0': 'Litecoin testnet4',
};

/** "TRON Shasta testnet (2494104990)" for a known id or genesis, else the id itself. */
export function networkName(id: number | string): string {
  const name = KNOWN_NETWORKS[String(id)];
  return name ? `${name} (${id})` : String(id);
}

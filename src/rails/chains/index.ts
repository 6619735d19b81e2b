/** Built-in chain watchers (docs/decisions.md sections 25 and 34): chains, their sources, the watcher loop and its admin API. */
export { CHAIN_NAMES, CHAINS, type ChainInfo, type ChainName, chainInfo } from './chain-catalog.js';
export type { BlockRef, ChainSource, SeenTransfer, SourceSettings, WatchList } from './chain-source.js';
export { ChainSourceError } from './chain-source.js';
export { chainSources } from './chain-sources.js';
export { chainsAdminRoutes } from './chains-routes.js';
export { type ChainsService, createChainsService, type SourceFactory } from './chains-service.js';

import { onPostgres } from '../helpers/database.js';
import { startHardhat } from '../helpers/evm-nodes.js';
import { evmWatcherScenarios } from './evm-scenarios.js';

// The Ethereum watcher's scenarios against Hardhat Network (`hardhat node` from npm, on 127.0.0.1,
// started and stopped here). Reorgs are driven with evm_snapshot / evm_revert, which Hardhat has.
evmWatcherScenarios('the Ethereum watcher against Hardhat Network (docs/decisions.md section 34)', {
  skip: onPostgres()
    ? 'node conformance does not depend on the database: on PostgreSQL only the Anvil file runs these scenarios'
    : false,
  async start() {
    const node = await startHardhat();
    return { node, url: node.url, stop: () => node.stop() };
  },
});

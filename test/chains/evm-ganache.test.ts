import { onPostgres } from '../helpers/database.js';
import { startGanache } from '../helpers/evm-nodes.js';
import { evmWatcherScenarios } from './evm-scenarios.js';

// The Ethereum watcher's scenarios against Ganache (npm `ganache`, in this process on 127.0.0.1).
// Reorgs are driven with evm_snapshot / evm_revert, which Ganache has.
evmWatcherScenarios('the Ethereum watcher against Ganache (docs/decisions.md section 34)', {
  skip: onPostgres()
    ? 'node conformance does not depend on the database: on PostgreSQL only the Anvil file runs these scenarios'
    : false,
  async start() {
    const node = await startGanache();
    return { node, url: node.url, stop: () => node.stop() };
  },
});

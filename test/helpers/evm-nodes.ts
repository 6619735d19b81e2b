/**
 * Real EVM node implementations from npm for the watcher's conformance scenarios, each on 127.0.0.1
 * only, started and stopped by the tests: Hardhat Network (`hardhat node` of the `hardhat` devDependency,
 * 2.x, whose CLI declares Node 20, 22 and 24 support) and Ganache (the `ganache` devDependency, in
 * process over its own loopback HTTP server). Anvil has its own helper (anvil.ts). Neither downloads
 * anything: Hardhat's EDR runtime and Ganache's engine ship inside their npm packages; Hardhat's
 * telemetry needs consent (never given here, CI=true) and its banner and version check run only on
 * a terminal. All three drive the same `EvmTestNode` (unlocked accounts, the Test USDT fixture).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from 'viem';
import { driveNode, type EvmTestNode, superviseChild } from './evm-rpc.js';

export type { EvmTestNode } from './evm-rpc.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const requireHere = createRequire(import.meta.url);

/** The version of an installed package (for test names and the notes). */
export function packageVersion(name: string): string {
  return (requireHere(`${name}/package.json`) as { version: string }).version;
}

/** Ganache (npm `ganache`) in this process on 127.0.0.1, chain id 1337, 3 deterministic unlocked accounts. */
export async function startGanache(): Promise<EvmTestNode> {
  const ganache = (await import('ganache')).default;
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId: 1337 },
    wallet: { totalAccounts: 3, deterministic: true, defaultBalance: 1000 },
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as { port: number };
  let stopped: Promise<void> | undefined;
  return driveNode(`http://127.0.0.1:${port}`, {
    name: `Ganache ${packageVersion('ganache')}`,
    mineMany: (n) => ['evm_mine', [{ blocks: n }]],
    stop: () => {
      stopped ??= server.close();
      return stopped;
    },
  });
}

/**
 * Hardhat Network: `hardhat node` of the installed `hardhat` on 127.0.0.1, on a port it picks (its
 * "Started HTTP ... at" line names it), chain id 31337, with a config in a temporary directory
 * (removed by stop) and Hardhat's own data and cache directories there too.
 */
export async function startHardhat(): Promise<EvmTestNode> {
  const dir = mkdtempSync(join(tmpdir(), 'hardhat-node-'));
  const config = join(dir, 'hardhat.config.cjs');
  writeFileSync(
    config,
    `module.exports = { networks: { hardhat: { chainId: 31337, accounts: { count: 3 }, mining: { auto: true } } } };\n`,
  );
  const cli = join(dirname(requireHere.resolve('hardhat/package.json')), 'internal', 'cli', 'cli.js');
  const child = spawn(
    process.execPath,
    [cli, 'node', '--hostname', '127.0.0.1', '--port', '0', '--config', config],
    {
      // Hardhat runs only from a project that installed it: the repository root.
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        XDG_DATA_HOME: dir,
        XDG_CACHE_HOME: dir,
        XDG_CONFIG_HOME: dir,
        CI: 'true',
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let url: string | undefined;
  const hardhat = superviseChild(child, {
    name: 'hardhat node',
    dir,
    onOutput: (tail) => {
      url ??= /Started HTTP and WebSocket JSON-RPC server at (http:\/\/127\.0\.0\.1:\d+)\//.exec(tail)?.[1];
    },
  });
  const deadline = Date.now() + 60_000;
  while (!url) {
    if (hardhat.exitReason() || Date.now() > deadline) {
      await hardhat.stop();
      throw new Error(`hardhat node did not start:\n${hardhat.tail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return driveNode(url, {
    name: `Hardhat Network ${packageVersion('hardhat')}`,
    mineMany: (n) => ['hardhat_mine', [toHex(n)]],
    stop: hardhat.stop,
  });
}

/**
 * A local EVM node for tests: Anvil from the `@foundry-rs/anvil` devDependency, on 127.0.0.1, with
 * its default funded and unlocked accounts (no private keys), plus the Test USDT token compiled into
 * test/fixtures/test-usdt.json (scripts/compile-test-token.mjs). Nothing leaves loopback: Anvil only
 * talks to a remote node when forking (--fork-url), which is never passed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Hex, toHex } from 'viem';
import { driveNode, type EvmTestNode, superviseChild } from './evm-rpc.js';

export { type RpcReceipt, testToken } from './evm-rpc.js';

export interface AnvilOptions {
  /** eth_chainId of the node; default 31337 (Anvil's). */
  chainId?: number;
  /**
   * Seconds between blocks (interval mining). Unset: automine, every transaction in its own block
   * mined as it is sent.
   */
  blockTime?: number;
}

/** Anvil: every EVM test node's calls, and Anvil's own mining in time and reorgs. */
export interface AnvilNode extends EvmTestNode {
  /** Mines `blocks` empty blocks now (anvil_mine); `intervalSeconds` apart in timestamp if given. */
  mine(blocks?: number, intervalSeconds?: number): Promise<void>;
  /**
   * Replaces the last `depth` blocks with as many new empty blocks (anvil_reorg, no replayed
   * transactions): the height stays, their hashes change, their transactions and state changes are gone.
   */
  reorg(depth: number): Promise<void>;
}

/** A JSON-RPC error reply from Anvil (e.g. "execution reverted: balance"). */
export class AnvilRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`anvil ${method}: ${message} (code ${code})`);
    this.name = 'AnvilRpcError';
  }
}

const STARTUP_TIMEOUT_MS = 10_000;

let binaryPath: Promise<string> | undefined;

/**
 * Absolute path of the Anvil binary, found the way the package's own `bin.mjs` finds it: its
 * const.mjs names the platform package (@foundry-rs/anvil-<os>-<arch>), resolved from the anvil
 * package; then the fallbacks a postinstall download may have written. Throws a message that says
 * what is missing.
 */
export function anvilBinaryPath(): Promise<string> {
  binaryPath ??= findAnvilBinary();
  return binaryPath;
}

async function findAnvilBinary(): Promise<string> {
  const require = createRequire(import.meta.url);
  let pkgDir: string;
  try {
    pkgDir = dirname(require.resolve('@foundry-rs/anvil/package.json'));
  } catch {
    throw new Error('@foundry-rs/anvil is not installed: it is a devDependency, run `npm ci`');
  }
  // A computed specifier: const.mjs ships no types, so the import is typed by hand below.
  const constUrl = pathToFileURL(join(pkgDir, 'const.mjs')).href;
  const { BINARY_NAME, PLATFORM_SPECIFIC_PACKAGE_NAME } = (await import(constUrl)) as {
    BINARY_NAME(tool: 'anvil'): string;
    PLATFORM_SPECIFIC_PACKAGE_NAME(tool: 'anvil'): string | undefined;
  };
  const platformPackage = PLATFORM_SPECIFIC_PACKAGE_NAME('anvil');
  const binaryName = BINARY_NAME('anvil');
  if (!platformPackage) {
    throw new Error(`@foundry-rs/anvil has no binary for ${process.platform}/${process.arch}`);
  }
  const candidates: string[] = [];
  try {
    // Resolved from the anvil package, as bin.mjs does: the platform package is its optional dependency.
    candidates.push(createRequire(join(pkgDir, 'bin.mjs')).resolve(`${platformPackage}/bin/${binaryName}`));
  } catch {
    // not installed: try the fallbacks
  }
  candidates.push(join(pkgDir, binaryName), join(pkgDir, '..', 'dist', binaryName));
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `Anvil binary not found: ${platformPackage} (optional dependency of @foundry-rs/anvil) is not ` +
        `installed, and neither ${candidates.slice(-2).join(' nor ')} exists. Reinstall with optional ` +
        'dependencies (`npm ci --include=optional`).',
    );
  }
  return found;
}

/**
 * Starts Anvil on 127.0.0.1 on a port it picks (--port 0; the port is read from its "Listening on"
 * line, so no other process can take it in between) and resolves once eth_chainId answers (10 s
 * limit). Automine unless `blockTime` is set. Call stop() when done; the process exit kills it
 * anyway.
 */
export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilNode> {
  const chainId = opts.chainId ?? 31337;
  const binary = await anvilBinaryPath();
  // Anvil spills old block states to disk (~/.foundry/anvil/tmp by default) and never deletes them,
  // not even on SIGINT: give it a directory of its own that stop() removes.
  const cacheDir = mkdtempSync(join(tmpdir(), 'anvil-harness-'));
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)];
  args.push('--cache-path', cacheDir, '--color', 'never');
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));

  let listening: string | undefined;
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const anvil = superviseChild(child, {
    name: 'anvil',
    dir: cacheDir,
    // Checked on every chunk, so the line cannot scroll out of the tail unseen.
    onOutput: (tail) => {
      listening ??= listeningUrl(tail);
    },
  });
  let url: string;
  try {
    url = await waitUntilReady(child, () => listening, anvil.tail, anvil.exited);
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  const node = await driveNode(url, {
    name: 'anvil',
    stop: anvil.stop,
    rpcError: (method, e) => new AnvilRpcError(method, e.code, e.message, e.data),
    // A refused connection says little; a crashed Anvil says why in its output.
    transportError: (method, err) => {
      const reason = anvil.exitReason();
      return reason ? new Error(`anvil ${method}: ${reason}\n${anvil.tail()}`) : (err as Error);
    },
    // Interval mining can take a whole block time (plus slack) to include a transaction.
    receiptTimeoutMs: Math.max(10_000, (opts.blockTime ?? 0) * 3_000),
    estimateGas: true,
  });
  return {
    ...node,
    async mine(blocks = 1, intervalSeconds) {
      const params: Hex[] = [toHex(blocks)];
      if (intervalSeconds !== undefined) params.push(toHex(intervalSeconds));
      await node.rpc('anvil_mine', params);
    },
    async reorg(depth) {
      if (!Number.isInteger(depth) || depth < 1)
        throw new Error(`reorg depth must be a positive integer: ${depth}`);
      // [depth, [[txRequest, blockOffset], ...]]: no pairs, so the new blocks are empty.
      await node.rpc('anvil_reorg', [depth, []]);
    },
  };
}

/** Waits for Anvil's "Listening on 127.0.0.1:<port>" line, then polls eth_chainId until it answers. */
async function waitUntilReady(
  child: ChildProcess,
  listening: () => string | undefined,
  tail: () => string,
  exited: Promise<string>,
): Promise<string> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let failure: string | undefined;
  void exited.then((reason) => {
    failure = reason;
  });
  for (;;) {
    if (failure) throw new Error(`Anvil did not start: ${failure}\n${tail()}`);
    if (Date.now() > deadline) {
      throw new Error(`Anvil did not answer within ${STARTUP_TIMEOUT_MS} ms (pid ${child.pid})\n${tail()}`);
    }
    const url = listening();
    if (url && (await answersChainId(url))) return url;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function listeningUrl(output: string): string | undefined {
  const port = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  return port ? `http://127.0.0.1:${port}` : undefined;
}

async function answersChainId(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const reply = (await res.json()) as { result?: string };
    return typeof reply.result === 'string';
  } catch {
    return false;
  }
}

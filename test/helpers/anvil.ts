/**
 * A local EVM node for tests: Anvil from the `@foundry-rs/anvil` devDependency, on 127.0.0.1, with
 * its default funded and unlocked accounts (no private keys), plus the Test USDT token compiled into
 * test/fixtures/test-usdt.json (scripts/compile-test-token.mjs). Nothing leaves loopback: Anvil only
 * talks to a remote node when forking (--fork-url), which is never passed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToBigInt,
  toHex,
} from 'viem';

/** The Test USDT artifact: ABI and init code (constructor(uint8 decimals_)). */
export const testToken: { abi: Abi; bytecode: Hex } = (() => {
  const file = new URL('../fixtures/test-usdt.json', import.meta.url);
  const artifact = JSON.parse(readFileSync(file, 'utf8')) as { abi: Abi; bytecode: Hex };
  return { abi: artifact.abi, bytecode: artifact.bytecode };
})();

export interface AnvilOptions {
  /** eth_chainId of the node; default 31337 (Anvil's). */
  chainId?: number;
  /**
   * Seconds between blocks (interval mining). Unset: automine, every transaction in its own block
   * mined as it is sent.
   */
  blockTime?: number;
}

/** A transaction receipt as Anvil returns it (hex quantities). */
export interface RpcReceipt {
  transactionHash: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  status: Hex;
  contractAddress: Address | null;
  logs: Array<{
    address: Address;
    topics: Hex[];
    data: Hex;
    logIndex: Hex;
    transactionHash: Hex;
    blockNumber: Hex;
    blockHash: Hex;
  }>;
}

export interface AnvilNode {
  /** JSON-RPC endpoint, http://127.0.0.1:<port>. */
  url: string;
  chainId: number;
  /** The node's funded, unlocked accounts (eth_accounts, checksummed); index 0 sends by default. */
  accounts: readonly Address[];
  /** Kills Anvil and removes its state directory. Idempotent. */
  stop(): Promise<void>;
  /** One JSON-RPC call. bigint params are sent as hex quantities. Throws AnvilRpcError on an error reply. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `blocks` empty blocks now (anvil_mine); `intervalSeconds` apart in timestamp if given. */
  mine(blocks?: number, intervalSeconds?: number): Promise<void>;
  /** Deploys a Test USDT with `decimals` decimals from account 0; resolves with its address once mined. */
  deployToken(decimals: number): Promise<Address>;
  /** Mints `amount` base units of `token` to `to` (Transfer from the zero address). Resolves with the tx hash. */
  mint(token: string, to: string, amount: bigint): Promise<Hex>;
  /**
   * Transfers `amount` base units from accounts[fromIndex] (default 0), which must hold them (mint
   * first): one Transfer log. Resolves with the tx hash once mined with status 1.
   */
  transferToken(token: string, to: string, amount: bigint, fromIndex?: number): Promise<Hex>;
  /** One transaction, one Transfer log per recipient in array order (batchTransfer). Resolves with the tx hash. */
  batchTransferToken(token: string, tos: string[], amounts: bigint[], fromIndex?: number): Promise<Hex>;
  /** Sends `amountWei` of the native coin from accounts[fromIndex] (default 0). Resolves with the tx hash. */
  sendNative(to: string, amountWei: bigint, fromIndex?: number): Promise<Hex>;
  /**
   * Replaces the last `depth` blocks with as many new empty blocks (anvil_reorg, no replayed
   * transactions): the height stays, their hashes change, their transactions and state changes are gone.
   */
  reorg(depth: number): Promise<void>;
  /** eth_blockNumber as a number. */
  blockNumber(): Promise<number>;
  /** balanceOf(owner) of `token`, in base units, at the latest block. */
  tokenBalance(token: string, owner: string): Promise<bigint>;
  /** Native balance in wei at the latest block. */
  nativeBalance(address: string): Promise<bigint>;
  /** Receipt of `hash`, null when unknown (never mined, or dropped by a reorg). */
  receipt(hash: string): Promise<RpcReceipt | null>;
  /** evm_snapshot: an id for revert(). */
  snapshot(): Promise<Hex>;
  /** evm_revert to a snapshot (chain and state); the id is used up. */
  revert(id: Hex): Promise<void>;
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
const RECEIPT_POLL_MS = 25;
/** Enough output to explain a failed start or a crash without keeping Anvil's per-call log forever. */
const OUTPUT_TAIL_CHARS = 8_000;

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

interface Running {
  child: ChildProcess;
  cacheDir: string;
}
/** Nodes not stopped yet: killed when the test process ends, so a missing stop() leaves no Anvil behind. */
const running = new Set<Running>();
let exitHooksInstalled = false;

function killRunning(): void {
  for (const node of running) {
    node.child.kill('SIGKILL');
    rmSync(node.cacheDir, { recursive: true, force: true });
  }
  running.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', killRunning);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      killRunning();
      // Alone on this signal, our listener would swallow it: re-raise so the process still ends.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
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

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const node: Running = { child, cacheDir };
  running.add(node);
  installExitHooks();

  let tail = '';
  let listening: string | undefined;
  const remember = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    // Checked on every chunk, so the line cannot scroll out of the tail unseen.
    listening ??= listeningUrl(tail);
  };
  // Always drained: Anvil logs every RPC method, and a full pipe would block it.
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  // Neither the process nor its pipes keep the test process alive: the exit hook kills Anvil.
  child.unref();
  (child.stdout as Socket | null)?.unref();
  (child.stderr as Socket | null)?.unref();

  const exited = new Promise<string>((resolve) => {
    child.on('error', (err) => resolve(`could not run ${binary}: ${err.message}`));
    child.once('exit', (code, signal) => resolve(`anvil exited (code ${code}, signal ${signal})`));
  });
  let exitReason: string | undefined;
  void exited.then((reason) => {
    exitReason = reason;
    running.delete(node);
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      running.delete(node);
      if (exitReason === undefined) {
        // Keep the loop alive until it has really gone (the process was unref'd).
        child.ref();
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(timer);
      }
      rmSync(cacheDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  let url: string;
  try {
    url = await waitUntilReady(
      child,
      () => listening,
      () => tail,
      exited,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  let nextId = 1;
  async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }, (_key, value) =>
      typeof value === 'bigint' ? toHex(value) : value,
    );
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch (err) {
      // A refused connection says little; a crashed Anvil says why in its output.
      if (exitReason) throw new Error(`anvil ${method}: ${exitReason}\n${tail}`);
      throw err;
    }
    if (!res.ok) throw new Error(`anvil ${method}: HTTP ${res.status} ${await res.text()}`);
    const reply = (await res.json()) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    };
    if (reply.error) throw new AnvilRpcError(method, reply.error.code, reply.error.message, reply.error.data);
    return reply.result as T;
  }

  const accounts = (await rpc<string[]>('eth_accounts')).map((a) => getAddress(a));
  const sender = (index = 0): Address => {
    const account = accounts[index];
    if (!account) throw new Error(`no account ${index}: Anvil has ${accounts.length}`);
    return account;
  };
  // Interval mining can take a whole block time (plus slack) to include a transaction.
  const receiptTimeoutMs = Math.max(10_000, (opts.blockTime ?? 0) * 3_000);

  const receipt = (hash: string) => rpc<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);

  /** Sends from an unlocked account, waits for the receipt, throws unless status is 1. */
  async function send(tx: { from: Address; to?: Address; data?: Hex; value?: bigint }): Promise<RpcReceipt> {
    const hash = await rpc<Hex>('eth_sendTransaction', [tx]);
    const deadline = Date.now() + receiptTimeoutMs;
    for (;;) {
      const r = await receipt(hash);
      if (r) {
        if (r.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
        return r;
      }
      if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${receiptTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }

  const callToken = async (token: string, data: Hex): Promise<Hex> =>
    rpc<Hex>('eth_call', [{ to: getAddress(token), data }, 'latest']);

  return {
    url,
    chainId,
    accounts,
    stop,
    rpc,
    receipt,

    async mine(blocks = 1, intervalSeconds) {
      const params = [toHex(blocks)];
      if (intervalSeconds !== undefined) params.push(toHex(intervalSeconds));
      await rpc('anvil_mine', params);
    },

    async deployToken(decimals) {
      const data = encodeDeployData({ abi: testToken.abi, bytecode: testToken.bytecode, args: [decimals] });
      const r = await send({ from: sender(), data });
      if (!r.contractAddress) throw new Error(`deployment ${r.transactionHash} created no contract`);
      return getAddress(r.contractAddress);
    },

    async mint(token, to, amount) {
      const data = encodeFunctionData({
        abi: testToken.abi,
        functionName: 'mint',
        args: [getAddress(to), amount],
      });
      return (await send({ from: sender(), to: getAddress(token), data })).transactionHash;
    },

    async transferToken(token, to, amount, fromIndex = 0) {
      const data = encodeFunctionData({
        abi: testToken.abi,
        functionName: 'transfer',
        args: [getAddress(to), amount],
      });
      return (await send({ from: sender(fromIndex), to: getAddress(token), data })).transactionHash;
    },

    async batchTransferToken(token, tos, amounts, fromIndex = 0) {
      if (tos.length !== amounts.length) {
        throw new Error(`batchTransferToken: ${tos.length} recipients but ${amounts.length} amounts`);
      }
      const data = encodeFunctionData({
        abi: testToken.abi,
        functionName: 'batchTransfer',
        args: [tos.map((a) => getAddress(a)), amounts],
      });
      return (await send({ from: sender(fromIndex), to: getAddress(token), data })).transactionHash;
    },

    async sendNative(to, amountWei, fromIndex = 0) {
      return (await send({ from: sender(fromIndex), to: getAddress(to), value: amountWei })).transactionHash;
    },

    async reorg(depth) {
      if (!Number.isInteger(depth) || depth < 1)
        throw new Error(`reorg depth must be a positive integer: ${depth}`);
      // [depth, [[txRequest, blockOffset], ...]]: no pairs, so the new blocks are empty.
      await rpc('anvil_reorg', [depth, []]);
    },

    async blockNumber() {
      return Number(hexToBigInt(await rpc<Hex>('eth_blockNumber')));
    },

    async tokenBalance(token, owner) {
      const data = encodeFunctionData({
        abi: testToken.abi,
        functionName: 'balanceOf',
        args: [getAddress(owner)],
      });
      const out = await callToken(token, data);
      return decodeFunctionResult({ abi: testToken.abi, functionName: 'balanceOf', data: out }) as bigint;
    },

    async nativeBalance(address) {
      return hexToBigInt(await rpc<Hex>('eth_getBalance', [getAddress(address), 'latest']));
    },

    snapshot: () => rpc<Hex>('evm_snapshot'),

    async revert(id) {
      if (!(await rpc<boolean>('evm_revert', [id]))) throw new Error(`evm_revert ${id}: no such snapshot`);
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

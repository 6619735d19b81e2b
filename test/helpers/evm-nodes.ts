/**
 * Real EVM node implementations from npm for the watcher's conformance scenarios, each on 127.0.0.1
 * only, started and stopped by the tests: Hardhat Network (`hardhat node` of the `hardhat` devDependency,
 * 2.x, whose CLI declares Node 20, 22 and 24 support) and Ganache (the `ganache` devDependency, in
 * process over its own loopback HTTP server). Anvil has its own helper (anvil.ts). Neither downloads
 * anything: Hardhat's EDR runtime and Ganache's engine ship inside their npm packages; Hardhat's
 * telemetry needs consent (never given here, CI=true) and its banner and version check run only on
 * a terminal. All three drive the same `EvmTestNode` (unlocked accounts, the Test USDT fixture).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToBigInt,
  toHex,
} from 'viem';
import { type RpcReceipt, testToken } from './anvil.js';

/** What the scenarios need of a node: the same surface as AnvilNode. */
export interface EvmTestNode {
  /** What it is, for test names ("Hardhat Network 2.29.1"). */
  name: string;
  url: string;
  chainId: number;
  accounts: readonly Address[];
  stop(): Promise<void>;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  mine(blocks?: number): Promise<void>;
  deployToken(decimals: number): Promise<Address>;
  mint(token: string, to: string, amount: bigint): Promise<Hex>;
  transferToken(token: string, to: string, amount: bigint, fromIndex?: number): Promise<Hex>;
  batchTransferToken(token: string, tos: string[], amounts: bigint[], fromIndex?: number): Promise<Hex>;
  sendNative(to: string, amountWei: bigint, fromIndex?: number): Promise<Hex>;
  blockNumber(): Promise<number>;
  tokenBalance(token: string, owner: string): Promise<bigint>;
  receipt(hash: string): Promise<RpcReceipt | null>;
  /** evm_snapshot: an id for revert(). */
  snapshot(): Promise<Hex>;
  /** evm_revert to a snapshot: the blocks mined since are gone (a reorg once new ones are mined). */
  revert(id: Hex): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const requireHere = createRequire(import.meta.url);

/** The version of an installed package (for test names and the notes). */
export function packageVersion(name: string): string {
  return (requireHere(`${name}/package.json`) as { version: string }).version;
}

/**
 * A node driver over JSON-RPC at `url` whose accounts are unlocked (eth_sendTransaction):
 * `mineMany` names the node's own call for several blocks at once (else evm_mine once per block).
 */
export async function driveNode(
  url: string,
  opts: { name: string; stop: () => Promise<void>; mineMany?: (n: number) => [string, unknown[]] },
): Promise<EvmTestNode> {
  let nextId = 1;
  async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }, (_k, v) =>
      typeof v === 'bigint' ? toHex(v) : v,
    );
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reply = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (reply.error)
      throw new Error(`${opts.name} ${method}: ${reply.error.message} (code ${reply.error.code})`);
    return reply.result as T;
  }
  const chainId = Number(hexToBigInt(await rpc<Hex>('eth_chainId')));
  const accounts = (await rpc<string[]>('eth_accounts')).map((a) => getAddress(a));
  const sender = (i = 0) => {
    const a = accounts[i];
    if (!a) throw new Error(`${opts.name} has no account ${i}`);
    return a;
  };
  const receipt = (hash: string) => rpc<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
  async function send(tx: { from: Address; to?: Address; data?: Hex; value?: bigint }): Promise<RpcReceipt> {
    const hash = await rpc<Hex>('eth_sendTransaction', [{ gas: toHex(3_000_000n), ...tx }]);
    for (let i = 0; i < 400; i++) {
      const r = await receipt(hash);
      if (r) {
        if (r.status !== '0x1') throw new Error(`${opts.name}: transaction ${hash} reverted`);
        return r;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${opts.name}: no receipt for ${hash}`);
  }
  const call = (abiFn: 'transfer' | 'mint' | 'batchTransfer', args: unknown[]) =>
    encodeFunctionData({ abi: testToken.abi, functionName: abiFn, args } as never);
  return {
    name: opts.name,
    url,
    chainId,
    accounts,
    stop: opts.stop,
    rpc,
    receipt,
    async mine(blocks = 1) {
      if (blocks > 1 && opts.mineMany) await rpc(...opts.mineMany(blocks));
      else for (let i = 0; i < blocks; i++) await rpc('evm_mine');
    },
    async deployToken(decimals) {
      const data = encodeDeployData({ abi: testToken.abi, bytecode: testToken.bytecode, args: [decimals] });
      const r = await send({ from: sender(), data });
      if (!r.contractAddress) throw new Error(`${opts.name}: deployment created no contract`);
      return getAddress(r.contractAddress);
    },
    async mint(token, to, amount) {
      return (
        await send({ from: sender(), to: getAddress(token), data: call('mint', [getAddress(to), amount]) })
      ).transactionHash;
    },
    async transferToken(token, to, amount, fromIndex = 0) {
      const data = call('transfer', [getAddress(to), amount]);
      return (await send({ from: sender(fromIndex), to: getAddress(token), data })).transactionHash;
    },
    async batchTransferToken(token, tos, amounts, fromIndex = 0) {
      const data = call('batchTransfer', [tos.map((a) => getAddress(a)), amounts]);
      return (await send({ from: sender(fromIndex), to: getAddress(token), data })).transactionHash;
    },
    async sendNative(to, amountWei, fromIndex = 0) {
      return (await send({ from: sender(fromIndex), to: getAddress(to), value: amountWei })).transactionHash;
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
      const out = await rpc<Hex>('eth_call', [{ to: getAddress(token), data }, 'latest']);
      return decodeFunctionResult({ abi: testToken.abi, functionName: 'balanceOf', data: out }) as bigint;
    },
    snapshot: () => rpc<Hex>('evm_snapshot'),
    async revert(id) {
      if (!(await rpc<boolean>('evm_revert', [id])))
        throw new Error(`${opts.name} evm_revert ${id}: no such snapshot`);
    },
  };
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
  const child: ChildProcess = spawn(
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
  let tail = '';
  let url: string | undefined;
  const remember = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8000);
    url ??= /Started HTTP and WebSocket JSON-RPC server at (http:\/\/127\.0\.0\.1:\d+)\//.exec(tail)?.[1];
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  child.unref();
  (child.stdout as Socket | null)?.unref();
  (child.stderr as Socket | null)?.unref();
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void gone.then(() => {
    exited = true;
  });
  const kill = () => {
    if (!exited) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', kill);
  const deadline = Date.now() + 60_000;
  while (!url) {
    if (exited || Date.now() > deadline) {
      kill();
      throw new Error(`hardhat node did not start:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let stopping: Promise<void> | undefined;
  return driveNode(url, {
    name: `Hardhat Network ${packageVersion('hardhat')}`,
    mineMany: (n) => ['hardhat_mine', [toHex(n)]],
    stop: () => {
      stopping ??= (async () => {
        process.off('exit', kill);
        if (!exited) {
          child.ref();
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
          await gone;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  });
}

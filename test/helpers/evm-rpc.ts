/**
 * What every EVM test node shares, whichever implementation runs it (Anvil, Hardhat Network,
 * Ganache): the Test USDT artifact, a JSON-RPC driver over a node whose accounts are unlocked
 * (eth_sendTransaction), and the supervision of a node running as a child process (its output's
 * tail for failures, killed when the test process ends, stopped gracefully).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { Agent, fetch } from 'undici';
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

/** A transaction receipt as the nodes return it (hex quantities). */
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

/** What the watcher's scenarios need of a node, whichever implementation it is. */
export interface EvmTestNode {
  /** What it is, for test names ("Hardhat Network 2.29.1"). */
  name: string;
  /** JSON-RPC endpoint, http://127.0.0.1:<port>. */
  url: string;
  chainId: number;
  /** The node's funded, unlocked accounts (eth_accounts, checksummed); index 0 sends by default. */
  accounts: readonly Address[];
  /** Stops the node and removes its state. Idempotent. */
  stop(): Promise<void>;
  /** One JSON-RPC call. bigint params are sent as hex quantities. Throws on an error reply. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `blocks` empty blocks now. */
  mine(blocks?: number): Promise<void>;
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
  /** evm_revert to a snapshot: the blocks mined since are gone (a reorg once new ones are mined). */
  revert(id: Hex): Promise<void>;
}

/** How one node differs under the shared driver. */
export interface DriveOptions {
  name: string;
  stop: () => Promise<void>;
  /** The node's own call for several blocks at once (else evm_mine once per block). */
  mineMany?: (n: number) => [string, unknown[]];
  /** The error thrown for a JSON-RPC error reply (default: an Error naming the node and method). */
  rpcError?: (method: string, error: { code: number; message: string; data?: unknown }) => Error;
  /** The error thrown when the node cannot be reached (default: the fetch error itself). */
  transportError?: (method: string, err: unknown) => Error;
  /** How long a sent transaction may take to be mined, in milliseconds (default 10 s). */
  receiptTimeoutMs?: number;
  /** Let the node estimate each transaction's gas (a revert then fails the send); default a fixed 3,000,000. */
  estimateGas?: boolean;
}

const RECEIPT_POLL_MS = 25;
/**
 * A connection per call: a node's HTTP server closes an idle kept-alive connection when it likes,
 * and a call sent on it just then fails with "other side closed" (seen with Hardhat Network).
 */
const noKeepAlive = new Agent({ pipelining: 0 });

/** A JSON-RPC client of `url`: one call per request, bigint params as hex quantities. */
function rpcClient(url: string, opts: DriveOptions) {
  let nextId = 1;
  return async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }, (_k, v) =>
      typeof v === 'bigint' ? toHex(v) : v,
    );
    let res: Awaited<ReturnType<typeof fetch>>;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        dispatcher: noKeepAlive,
      });
    } catch (err) {
      throw opts.transportError ? opts.transportError(method, err) : err;
    }
    if (!res.ok) throw new Error(`${opts.name} ${method}: HTTP ${res.status} ${await res.text()}`);
    const reply = (await res.json()) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    };
    if (reply.error) {
      throw opts.rpcError
        ? opts.rpcError(method, reply.error)
        : new Error(`${opts.name} ${method}: ${reply.error.message} (code ${reply.error.code})`);
    }
    return reply.result as T;
  };
}

/**
 * Drives the node at `url` whose accounts are unlocked: sends from them, waits for receipts (throws
 * on a revert or after `receiptTimeoutMs`), deploys and moves the Test USDT.
 */
export async function driveNode(url: string, opts: DriveOptions): Promise<EvmTestNode> {
  const rpc = rpcClient(url, opts);
  const chainId = Number(hexToBigInt(await rpc<Hex>('eth_chainId')));
  const accounts = (await rpc<string[]>('eth_accounts')).map((a) => getAddress(a));
  const sender = (i = 0) => {
    const a = accounts[i];
    if (!a) throw new Error(`${opts.name} has no account ${i}: it has ${accounts.length}`);
    return a;
  };
  const receipt = (hash: string) => rpc<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
  const timeoutMs = opts.receiptTimeoutMs ?? 10_000;
  async function send(tx: { from: Address; to?: Address; data?: Hex; value?: bigint }): Promise<RpcReceipt> {
    const hash = await rpc<Hex>('eth_sendTransaction', [
      opts.estimateGas ? tx : { gas: toHex(3_000_000n), ...tx },
    ]);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await receipt(hash);
      if (r) {
        if (r.status !== '0x1') throw new Error(`${opts.name}: transaction ${hash} reverted`);
        return r;
      }
      if (Date.now() > deadline)
        throw new Error(`${opts.name}: no receipt for ${hash} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }
  const call = (fn: 'transfer' | 'mint' | 'batchTransfer' | 'balanceOf', args: unknown[]) =>
    encodeFunctionData({ abi: testToken.abi, functionName: fn, args } as never);
  const sendToken = async (token: string, data: Hex, fromIndex = 0) =>
    (await send({ from: sender(fromIndex), to: getAddress(token), data })).transactionHash;
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
      if (!r.contractAddress)
        throw new Error(`${opts.name}: deployment ${r.transactionHash} created no contract`);
      return getAddress(r.contractAddress);
    },
    mint: (token, to, amount) => sendToken(token, call('mint', [getAddress(to), amount])),
    transferToken: (token, to, amount, fromIndex = 0) =>
      sendToken(token, call('transfer', [getAddress(to), amount]), fromIndex),
    async batchTransferToken(token, tos, amounts, fromIndex = 0) {
      if (tos.length !== amounts.length) {
        throw new Error(`batchTransferToken: ${tos.length} recipients but ${amounts.length} amounts`);
      }
      return sendToken(token, call('batchTransfer', [tos.map((a) => getAddress(a)), amounts]), fromIndex);
    },
    async sendNative(to, amountWei, fromIndex = 0) {
      return (await send({ from: sender(fromIndex), to: getAddress(to), value: amountWei })).transactionHash;
    },
    blockNumber: async () => Number(hexToBigInt(await rpc<Hex>('eth_blockNumber'))),
    async tokenBalance(token, owner) {
      const out = await rpc<Hex>('eth_call', [
        { to: getAddress(token), data: call('balanceOf', [getAddress(owner)]) },
        'latest',
      ]);
      return decodeFunctionResult({ abi: testToken.abi, functionName: 'balanceOf', data: out }) as bigint;
    },
    nativeBalance: async (address) =>
      hexToBigInt(await rpc<Hex>('eth_getBalance', [getAddress(address), 'latest'])),
    snapshot: () => rpc<Hex>('evm_snapshot'),
    async revert(id) {
      if (!(await rpc<boolean>('evm_revert', [id])))
        throw new Error(`${opts.name} evm_revert ${id}: no such snapshot`);
    },
  };
}

/** A node running as a child process, watched from its start. */
export interface SupervisedChild {
  /** The last `tailChars` characters of its stdout and stderr, to explain a failed start or a crash. */
  tail(): string;
  /** Why it ended ("… exited (code 1, signal null)"), undefined while it runs. */
  exitReason(): string | undefined;
  /** Resolves with the exit reason when it ends. */
  exited: Promise<string>;
  /** SIGTERM, SIGKILL after 3 s, then removes `dir`. Idempotent. */
  stop(): Promise<void>;
}

/** Children not stopped yet: killed when the test process ends, so a missing stop() leaves none behind. */
const running = new Map<ChildProcess, string>();
let exitHooksInstalled = false;

function killRunning(): void {
  for (const [child, dir] of running) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
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
 * Watches `child` (named `name` in messages), whose state lives in `dir`: drains its output (a full
 * pipe would block a node that logs every call), keeps neither it nor its pipes holding the test
 * process open, and kills it when the test process ends. `onOutput` sees the tail after each chunk.
 */
export function superviseChild(
  child: ChildProcess,
  opts: { name: string; dir: string; tailChars?: number; onOutput?: (tail: string) => void },
): SupervisedChild {
  const tailChars = opts.tailChars ?? 8_000;
  running.set(child, opts.dir);
  installExitHooks();
  let tail = '';
  const remember = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-tailChars);
    opts.onOutput?.(tail);
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  child.unref();
  (child.stdout as Socket | null)?.unref();
  (child.stderr as Socket | null)?.unref();
  let exitReason: string | undefined;
  const exited = new Promise<string>((resolve) => {
    child.on('error', (err) => resolve(`could not run ${opts.name}: ${err.message}`));
    child.once('exit', (code, signal) => resolve(`${opts.name} exited (code ${code}, signal ${signal})`));
  });
  void exited.then((reason) => {
    exitReason = reason;
    running.delete(child);
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      running.delete(child);
      if (exitReason === undefined) {
        // Keep the loop alive until it has really gone (the process was unref'd).
        child.ref();
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(timer);
      }
      rmSync(opts.dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  return { tail: () => tail, exitReason: () => exitReason, exited, stop };
}

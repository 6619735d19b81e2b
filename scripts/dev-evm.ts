// A local EVM node's helper for the README's crypto guide (never for production): deploys the
// Test USDT of test/fixtures to a node such as `npx anvil` on 127.0.0.1, pays an address, mines.
//   npx tsx scripts/dev-evm.ts deploy [--decimals 6]         -> prints the token address
//   npx tsx scripts/dev-evm.ts pay <token> <to> <amount>      (amount in USDT, e.g. 25.5)
//   npx tsx scripts/dev-evm.ts mine <blocks>
// EVM_URL (default http://127.0.0.1:8545). It refuses any host but loopback.
import { readFileSync } from 'node:fs';
import { type Abi, encodeDeployData, encodeFunctionData, type Hex, parseUnits } from 'viem';

const url = process.env.EVM_URL ?? 'http://127.0.0.1:8545';
if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) {
  console.error(`EVM_URL must be a local node (127.0.0.1), not ${url}`);
  process.exit(1);
}
const artifact = JSON.parse(
  readFileSync(new URL('../test/fixtures/test-usdt.json', import.meta.url), 'utf8'),
) as { abi: Abi; bytecode: Hex };

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function send(tx: Record<string, string>): Promise<{ contractAddress: string | null; hash: string }> {
  const [from] = await rpc<string[]>('eth_accounts');
  const hash = await rpc<string>('eth_sendTransaction', [{ from, ...tx }]);
  for (let i = 0; i < 50; i++) {
    const r = await rpc<{ status: string; contractAddress: string | null } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (r) {
      if (r.status !== '0x1') throw new Error(`transaction ${hash} failed`);
      return { contractAddress: r.contractAddress, hash };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`transaction ${hash} was not mined`);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'deploy') {
  const decimals = Number(args[args.indexOf('--decimals') + 1] || 6);
  const { contractAddress } = await send({
    data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: [decimals] }),
  });
  const [from] = await rpc<string[]>('eth_accounts');
  await send({
    to: contractAddress as string,
    data: encodeFunctionData({
      abi: artifact.abi,
      functionName: 'mint',
      args: [from, parseUnits('1000000', decimals)],
    }),
  });
  console.log(contractAddress);
} else if (command === 'pay' && args.length === 3) {
  const [token, to, amount] = args as [string, string, string];
  const decimals = Number(
    BigInt(
      await rpc<string>('eth_call', [
        { to: token, data: encodeFunctionData({ abi: artifact.abi, functionName: 'decimals' }) },
        'latest',
      ]),
    ),
  );
  const { hash } = await send({
    to: token,
    data: encodeFunctionData({
      abi: artifact.abi,
      functionName: 'transfer',
      args: [to, parseUnits(amount, decimals)],
    }),
  });
  console.log(hash);
} else if (command === 'mine' && args.length === 1) {
  await rpc('anvil_mine', [`0x${Number(args[0]).toString(16)}`]);
  console.log(`mined ${args[0]}; head ${Number.parseInt(await rpc<string>('eth_blockNumber'), 16)}`);
} else {
  console.error('usage: dev-evm.ts deploy [--decimals 6] | pay <token> <to> <amount> | mine <blocks>');
  process.exit(1);
}

#!/usr/bin/env node
/**
 * Compiles test/fixtures/test-usdt.sol with the npm `solc` package (soljson, no download) and writes
 * test/fixtures/test-usdt.json = { abi, bytecode: "0x…", compiler: "solc 0.8.30", source }.
 * Run by hand after editing the .sol (`node scripts/compile-test-token.mjs`); the JSON is checked in so
 * tests never run the compiler (it takes seconds and a lot of memory).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import solc from 'solc';

const EXPECTED_VERSION = '0.8.30';
const SOURCE = 'test/fixtures/test-usdt.sol';
const OUTPUT = 'test/fixtures/test-usdt.json';
const CONTRACT = 'TestUSDT';

const root = new URL('..', import.meta.url).pathname;

// The pragma pins 0.8.30; checking here gives a clear message instead of a pragma error if the
// devDependency moves.
const version = solc.version();
if (!version.startsWith(`${EXPECTED_VERSION}+`)) {
  console.error(`expected solc ${EXPECTED_VERSION}, the installed package is ${version}`);
  process.exit(1);
}

const input = {
  language: 'Solidity',
  sources: { [SOURCE]: { content: readFileSync(join(root, SOURCE), 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Pinned (not the compiler's default) so the bytecode stays the same and runs on any post-Dencun
    // node, whatever hardfork a test picks for Anvil.
    evmVersion: 'cancun',
    outputSelection: { [SOURCE]: { [CONTRACT]: ['abi', 'evm.bytecode.object'] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage ?? e.message);
if (errors.length > 0) process.exit(1);

const contract = output.contracts?.[SOURCE]?.[CONTRACT];
if (!contract?.evm?.bytecode?.object) {
  console.error(`no bytecode for ${CONTRACT} in the compiler output`);
  process.exit(1);
}

const artifact = {
  abi: contract.abi,
  bytecode: `0x${contract.evm.bytecode.object}`,
  compiler: `solc ${EXPECTED_VERSION}`,
  source: SOURCE,
};
writeFileSync(join(root, OUTPUT), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote ${OUTPUT} (${(artifact.bytecode.length - 2) / 2} bytes of init code, solc ${version})`);

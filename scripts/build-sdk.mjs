#!/usr/bin/env node
// The root's `prepare` (npm ci, npm install): builds the merchant SDK workspace (packages/sdk/dist)
// so `npx payment-orders` works in the clone at once. An install without dev dependencies
// (`npm ci --omit=dev`, a production image) has no TypeScript: then it says so and builds nothing.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require.resolve('typescript/package.json');
} catch {
  console.log('prepare: TypeScript is not installed (production install): the SDK is not built');
  process.exit(0);
}
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const run = spawnSync(npm[0], [...npm[1], 'run', '-s', 'build', '-w', '@payment-orders/merchant-sdk'], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);

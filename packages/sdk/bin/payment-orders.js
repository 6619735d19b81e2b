#!/usr/bin/env node
// The `payment-orders` command: runs the compiled CLI (dist/, built by `npm run build`, which
// `prepare` runs on install and `prepack` before a pack). Kept as plain JS so the command exists,
// executable, before the first build.
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  process.stderr.write(
    'payment-orders: the SDK is not built yet: run `npm run build` in its folder (packages/sdk)\n',
  );
  process.exit(1);
}
process.exitCode = await cli.runCli(process.argv.slice(2), process.env);

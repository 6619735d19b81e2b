import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onPostgres } from '../helpers/database.js';
import { compactOutput, type DocBlock, docBlocks, expectedPairs, shellSteps } from '../helpers/doc-blocks.js';

// Every runnable block of the documents, in order, against `npm start` started for real (the rule
// is in test/helpers/doc-blocks.ts). The blocks use the documented addresses; this test gives each
// documented port a free one of its own (the only change it makes to a block), so it never meets a
// service a developer runs on 3000.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  'docs/api.md',
  'docs/decisions.md',
  'docs/architecture.md',
  'packages/sdk/README.md',
];
/** The documented ports: the service, the local EVM node, the example receiver, the SDK listeners. */
const DOCUMENTED_PORTS = [3000, 8545, 8080, 8081, 8082, 4242, 4243] as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const skip = onPostgres()
  ? 'the docs describe npm start on the embedded database: this runs in the embedded-database pass'
  : false;

describe('every runnable block of the docs runs as written, in order, against npm start', { skip }, () => {
  let work: string;
  let dataDir: string;
  const ports = new Map<number, number>();
  let service: ChildProcess | undefined;
  let serviceOut = '';
  const groups: number[] = [];
  const background: Array<{ where: string; child: ChildProcess; out: () => string }> = [];
  let env: Record<string, string>;

  const where = (b: DocBlock) => `${b.file}:${b.line}`;
  const localise = (code: string) => {
    let out = code;
    for (const [documented, actual] of ports)
      out = out.replace(new RegExp(`\\b${documented}\\b`, 'g'), String(actual));
    return out;
  };

  /** Starts `npm start` as the README says (with the development-only loopback allowance). */
  async function startService(): Promise<string> {
    let out = '';
    service = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...env, OUTBOUND_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    service.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const deadline = Date.now() + 180_000;
    while (!/Pages: /.test(out)) {
      if (service.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
      if (Date.now() > deadline) throw new Error(`npm start did not say it listens:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 100));
    return out;
  }

  async function stopService(): Promise<void> {
    const child = service;
    service = undefined;
    if (!child?.pid || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  }

  /** Runs a file with the exported state of the blocks before it; a foreground run ends by its exit. */
  function runWithState(command: string, timeoutMs: number): Promise<Run> {
    // Variables and the working directory live on from step to step and block to block, as in the one
    // terminal a reader pastes into: every assignment is exported (set -a), the exports are kept in
    // state.sh and the directory in cwd (a block that leaves the clone must come back itself).
    const script = [
      'set -aeo pipefail',
      `[ -f '${work}/state.sh' ] && source '${work}/state.sh'`,
      `cd "$(cat '${work}/cwd' 2>/dev/null || echo '${ROOT}')"`,
      `OLDPWD="$(cat '${work}/oldpwd' 2>/dev/null || pwd)"`,
      command,
      `export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_)=' > '${work}/state.next'`,
      `mv '${work}/state.next' '${work}/state.sh'`,
      `pwd > '${work}/cwd' && echo "$OLDPWD" > '${work}/oldpwd'`,
    ].join('\n');
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true });
      if (child.pid) groups.push(child.pid);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      const timer = setTimeout(() => {
        stderr += `\n(timed out after ${timeoutMs} ms)`;
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      }, timeoutMs);
      // A command left running in the background (`npx anvil &`) keeps the pipes open: the step
      // ends when bash exits.
      child.once('exit', (code) => {
        clearTimeout(timer);
        setTimeout(() => resolve({ code, stdout, stderr }), 50);
      });
    });
  }

  function startBackground(block: DocBlock, command: string): void {
    const child = spawn(
      'bash',
      ['-c', `[ -f '${work}/state.sh' ] && source '${work}/state.sh'; cd '${ROOT}'; exec ${command}`],
      { cwd: ROOT, env, detached: true },
    );
    if (child.pid) groups.push(child.pid);
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    background.push({ where: where(block), child, out: () => out });
  }

  /** The command that runs a JS or TS module file. */
  async function moduleCommand(lang: 'js' | 'ts', name: string, code: string): Promise<string> {
    const dir = join(ROOT, '.test-artifacts', 'docs');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${name}.${lang === 'js' ? 'mjs' : 'mts'}`);
    await writeFile(file, code);
    return lang === 'js' ? `node '${file}'` : `node --import tsx '${file}'`;
  }

  /** The command that runs a shell block from a file (a background block). */
  async function shellFile(name: string, code: string): Promise<string> {
    const dir = join(ROOT, '.test-artifacts', 'docs');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${name}.sh`);
    await writeFile(file, code);
    return `bash '${file}'`;
  }

  async function waitForPorts(code: string): Promise<void> {
    const wanted = [...ports.values()].filter((p) => new RegExp(`\\b${p}\\b`).test(code));
    const deadline = Date.now() + 30_000;
    for (const port of wanted)
      while (!(await portOpen(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  }

  async function runShell(block: DocBlock): Promise<void> {
    for (const step of shellSteps(localise(block.code))) {
      const run = await runWithState(step.script, 240_000);
      const context = `${where(block)}\n--- step:\n${step.script}\n--- stdout:\n${run.stdout}\n--- stderr:\n${run.stderr}`;
      assert.equal(run.code, 0, `a block failed: ${context}`);
      if (step.expected === undefined) continue;
      const shown = compactOutput(run.stdout);
      const pairs = expectedPairs(step.expected);
      for (const pair of pairs)
        assert.ok(shown.includes(pair), `the docs show ${pair}, the command printed otherwise: ${context}`);
      // A shown output that is plain text (no JSON pairs, no placeholder) is printed as it is; a
      // shown output continued over lines compares with its line breaks as spaces.
      const text = step.expected.trim();
      const spaced = (t: string) => t.replace(/\s+/g, ' ');
      if (pairs.length === 0 && text && !/\.\.\.|…|<[^>]*>|[{}]/.test(text))
        assert.ok(
          spaced(run.stdout).includes(spaced(text)),
          `the docs show "${text}", the command printed otherwise: ${context}`,
        );
    }
  }

  async function runDocument(file: string): Promise<void> {
    const blocks = docBlocks(file, await readFile(join(ROOT, file), 'utf8'));
    let module: DocBlock[] = [];
    const flushModule = async () => {
      if (module.length === 0) return;
      const first = module[0] as DocBlock;
      const seen = new Set<string>();
      // Consecutive ts/js blocks are one module: later blocks use what earlier ones declared.
      const code = module
        .map((b) => b.code)
        .join('\n')
        .split('\n')
        .filter((l) => !(l.startsWith('import ') && seen.has(l)) && (seen.add(l) || true))
        .join('\n');
      const command = await moduleCommand(
        first.lang as 'js' | 'ts',
        `${file.replace(/\W/g, '_')}_${first.line}`,
        localise(code),
      );
      module = [];
      const run = await runWithState(command, 240_000);
      assert.equal(run.code, 0, `${where(first)}: the module failed:\n${run.stdout}\n${run.stderr}`);
      if (process.env.DOCS_RUN_SHOW) console.log(`--- ${where(first)}\n${run.stdout}\n${run.stderr}`);
    };
    for (const block of blocks) {
      if (!block.lang || block.notRun !== undefined) continue;
      if (block.background) {
        await flushModule();
        const command =
          block.lang === 'sh'
            ? await shellFile(`${file.replace(/\W/g, '_')}_bg_${block.line}`, localise(block.code))
            : await moduleCommand(
                block.lang,
                `${file.replace(/\W/g, '_')}_bg_${block.line}`,
                localise(block.code),
              );
        startBackground(block, command);
        await waitForPorts(localise(block.code));
        continue;
      }
      if (block.lang === 'sh') {
        await flushModule();
        await runShell(block);
        continue;
      }
      if (module.length > 0 && module[0]?.lang !== block.lang) await flushModule();
      module.push(block);
    }
    await flushModule();
  }

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'docs-run-'));
    dataDir = join(work, 'data');
    await mkdir(join(work, 'tmp'));
    for (const documented of DOCUMENTED_PORTS) ports.set(documented, await freePort());
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? work,
      LANG: 'C.UTF-8',
      TMPDIR: join(work, 'tmp'),
      PORT: String(ports.get(3000)),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EVM_URL: `http://127.0.0.1:${ports.get(8545)}`,
      NO_COLOR: '1',
      // Nothing from a registry: the SDK installs from its packed tarball, npx finds local bins.
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    serviceOut = await startService();
  });

  after(async () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await stopService();
    if (work) await rm(work, { recursive: true, force: true });
    await rm(join(ROOT, '.test-artifacts', 'docs'), { recursive: true, force: true });
  });

  it('npm start says where it listens, shows the generated admin token and where it is kept, and the next steps', async () => {
    assert.match(serviceOut, new RegExp(`listening on http://127\\.0\\.0\\.1:${ports.get(3000)}`));
    const token = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')).adminToken as string;
    assert.ok(
      serviceOut.includes(`Admin token (generated now, kept in ${join(dataDir, 'secrets.json')}): ${token}`),
      serviceOut,
    );
    assert.match(serviceOut, /Next: create a merchant/);
    assert.match(serviceOut, /Next: add a requisite/);
  });

  for (const file of DOCS) {
    it(`${file}: every runnable block, in order, as written`, { timeout: 1_200_000 }, async () => {
      if (!existsSync(join(ROOT, file))) return;
      await runDocument(file);
    });
  }

  it('background blocks (receivers, listeners) are still running and received something', () => {
    for (const b of background) {
      assert.equal(b.child.exitCode, null, `${b.where} stopped:\n${b.out()}`);
      assert.ok(b.out().trim().length > 0, `${b.where} printed nothing`);
      // A listener prints each delivery: every one must have verified with the reader's keys.
      assert.doesNotMatch(b.out(), /"verified":false/, `${b.where} got a delivery it could not verify`);
      if (process.env.DOCS_RUN_SHOW) console.log(`--- ${b.where}\n${b.out()}`);
    }
  });

  it('a restart does not show the token again: it says how to print it, and no hint for what exists', async () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await stopService();
    const again = await startService();
    const token = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')).adminToken as string;
    assert.ok(!again.includes(token), 'the token is not printed again');
    assert.match(again, /print it with: npm run -s admin -- token/);
    assert.doesNotMatch(again, /Next: create a merchant/);
    assert.doesNotMatch(again, /Next: add a requisite/);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseEnv } from '../config.js';
import { COMMANDS, parseCommandLine, USAGE } from './admin-commands.js';

/**
 * The admin token: ADMIN_TOKEN, else the one the embedded default generated in DATA_DIR/secrets.json.
 * Throws a message that says which is missing and how to fix it (README "The admin API and CLI").
 */
function adminToken(): string {
  const env = cliEnv();
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const dir = resolve(env.DATA_DIR);
  const file = join(dir, 'secrets.json');
  if (!existsSync(file)) {
    throw new Error(
      `No admin token: ADMIN_TOKEN is not set and ${file} does not exist.\n` +
        '  - On the embedded database, start the service once (npm start) from this directory, or set\n' +
        `    DATA_DIR to the directory the service uses (now ${dir}).\n` +
        '  - With DATABASE_URL, set ADMIN_TOKEN to the token the service was started with.',
    );
  }
  try {
    const token = (JSON.parse(readFileSync(file, 'utf8')) as { adminToken?: unknown }).adminToken;
    if (typeof token === 'string' && token) return token;
  } catch (err) {
    throw new Error(`Cannot read the admin token from ${file}: ${(err as Error).message}`);
  }
  throw new Error(`${file} holds no adminToken: set ADMIN_TOKEN.`);
}

/** The CLI reads the service's own configuration schema (src/config-schema.ts), parsed once. */
let parsedEnv: ReturnType<typeof parseEnv> | undefined;
function cliEnv(): ReturnType<typeof parseEnv> {
  parsedEnv ??= parseEnv(process.env);
  return parsedEnv;
}

function baseUrl(): string {
  const env = cliEnv();
  if (env.ADMIN_URL) return env.ADMIN_URL.replace(/\/+$/, '');
  const host = env.HOST !== '0.0.0.0' ? env.HOST : '127.0.0.1';
  return `http://${host}:${env.PORT}`;
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${baseUrl()}${path}`;
  // Read before connecting: a missing token is its own problem, not an unreachable service.
  const token = adminToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new Error(
      `Cannot reach the service at ${baseUrl()}: is it running (npm start)? Set ADMIN_URL otherwise.`,
    );
  }
  const json = (await res.json()) as {
    success: boolean;
    data?: unknown;
    message?: string;
    details?: unknown;
  };
  if (!json.success) {
    throw new Error(
      `${method} ${path} failed: ${res.status} ${json.message}${json.details ? ` ${JSON.stringify(json.details)}` : ''}`,
    );
  }
  return json.data;
}

/**
 * `npm run admin -- <command>`: the admin API from a terminal, for a first start without curl.
 * It talks to the running service (ADMIN_URL, default http://HOST:PORT) with ADMIN_TOKEN, or the token
 * the embedded default generated in DATA_DIR/secrets.json. Runs one CLI command (admin-commands.ts);
 * returns what to print.
 */
export async function run(argv: string[]): Promise<unknown> {
  const { values: o, positionals } = parseCommandLine(argv);
  const [group, action, ...rest] = positionals;
  if (o.help || !group) return USAGE;
  if (group === 'token' && !action) return adminToken();
  const handler = Object.hasOwn(COMMANDS, group) ? COMMANDS[group] : undefined;
  const answer = handler?.({ call, action, rest, o });
  if (answer) return answer;
  throw new Error(`Unknown command "${`${group} ${action ?? ''}`.trim()}".\n\n${USAGE}`);
}

/** Fields a person must copy from an answer (shown once): printed first, so they are never lost. */
const SECRET_FIELDS = ['api_key', 'password', 'token', 'recovery_codes', 'invite_url'];

/** The answer with its secret fields first (README "The admin API and CLI"); other values as they are. */
function secretsFirst(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const first = entries.filter(([k]) => SECRET_FIELDS.includes(k));
  return Object.fromEntries([...first, ...entries.filter(([k]) => !SECRET_FIELDS.includes(k))]);
}

// Only the answer goes to stdout (JSON, or the usage and token as text); every message to stderr.
run(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write(`${typeof out === 'string' ? out : JSON.stringify(secretsFirst(out), null, 2)}\n`);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

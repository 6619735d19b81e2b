import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { undici } from '../../lib/lazy-require.js';
import { signBody } from '../../modules/auth/index.js';
import type { OutboundGuard } from '../../platform/outbound/index.js';
import { ANSWER_TIMEOUT_MS, isAcknowledged, retryDelayAfter } from './webhook-schedule.js';
import {
  type AttemptResult,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempts,
} from './webhooks-repository.js';

const SNIPPET_BYTES = 1024;
/** Answer bytes read before the connection is dropped: enough for any acknowledgement. */
const MAX_READ_BYTES = 64 * 1024;
/** Results are written in groups: at most this many, or after this many ms. */
const RECORD_BATCH = 200;
const RECORD_DELAY_MS = 5;

export interface DispatcherDeps {
  database: Database;
  clock: Clock;
  guard: OutboundGuard;
  /** The merchant's current API key in clear (webhooks are signed with it), or undefined. */
  apiKeyFor: (merchantId: string, mode: 'live' | 'test') => Promise<string | undefined>;
  log?: FastifyBaseLogger;
  /** Deliveries claimed at a time. */
  batchSize?: number;
  /** In-flight deliveries per process, in units of `batchSize` (so `batchSize * loops` at most). */
  loops?: number;
  /** How long a claim is owned, ms: longer than the answer timeout, so a live worker never loses it. */
  leaseMs?: number;
  /** Pause when nothing is due, ms. */
  pollMs?: number;
  /** Called after each recorded attempt (metrics). */
  onAttempt?: (result: AttemptResult) => void;
}

interface SendOutcome {
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
}

function describeError(err: unknown): string {
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timeout after ${ANSWER_TIMEOUT_MS} ms`;
  if (e.name === 'ForbiddenAddressError') return `refused: ${e.message}`;
  const code = e.code ?? e.cause?.code;
  return `${code ? `${code}: ` : ''}${e.message ?? e.cause?.message ?? String(err)}`.slice(0, 500);
}

/**
 * Results written in groups (at most RECORD_BATCH, or after RECORD_DELAY_MS): `record` resolves once
 * its try is written, or its write failed (the try is sent again when its lease ends: at least
 * once, never lost); `flush` writes what waits now.
 */
function createAttemptRecorder(deps: Pick<DispatcherDeps, 'database' | 'log' | 'onAttempt'>) {
  const { database, log } = deps;
  let queue: Array<{ delivery: ClaimedDelivery; result: AttemptResult; done: () => void }> = [];
  let flushTimer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
    try {
      const recorded = await recordAttempts(database.db, items);
      for (const item of items) {
        if (!recorded.has(item.delivery.id)) {
          log?.warn({ deliveryId: item.delivery.id }, 'webhook lease lost before the result was recorded');
        }
        deps.onAttempt?.(item.result);
      }
    } catch (err) {
      // Unrecorded tries are sent again when their lease ends: at least once, never lost.
      log?.warn({ err }, 'recording webhook attempts failed');
    } finally {
      for (const item of items) item.done();
    }
  }

  function record(delivery: ClaimedDelivery, result: AttemptResult): Promise<void> {
    return new Promise<void>((done) => {
      queue.push({ delivery, result, done });
      if (queue.length >= RECORD_BATCH) void flush();
      else flushTimer ??= setTimeout(() => void flush(), RECORD_DELAY_MS);
    });
  }

  return { record, flush };
}

/** The first SNIPPET_BYTES of an answer, reading at most MAX_READ_BYTES before dropping the connection. */
async function answerSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    read += (chunk as Buffer).length;
    if (read >= MAX_READ_BYTES) {
      // A listener first: a destroyed undici body must not emit an unhandled 'error'.
      body.on('error', () => undefined);
      body.destroy();
      break;
    }
  }
  // StringDecoder holds back a character cut at the limit instead of emitting U+FFFD.
  return new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, SNIPPET_BYTES));
}

/** One signed POST of a delivery's exact body through the outbound guard, within ANSWER_TIMEOUT_MS. */
async function send(
  guard: OutboundGuard,
  delivery: ClaimedDelivery,
  apiKey: string | undefined,
): Promise<SendOutcome> {
  if (!apiKey)
    return { statusCode: null, error: 'merchant has no active API key to sign with', snippet: null };
  try {
    // undici is loaded at the first delivery, not at start.
    const res = await undici().request(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': signBody(apiKey, delivery.body) },
      body: delivery.body,
      dispatcher: guard.dispatcher,
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      headersTimeout: ANSWER_TIMEOUT_MS,
      bodyTimeout: ANSWER_TIMEOUT_MS,
    });
    return { statusCode: res.statusCode, error: null, snippet: await answerSnippet(res.body) };
  } catch (err) {
    return { statusCode: null, error: describeError(err), snippet: null };
  }
}

/**
 * The webhook dispatcher (docs/decisions.md section 11). It claims due deliveries in
 * one short statement, sends them outside any transaction through the outbound guard, and records the
 * tries in grouped statements. Deliveries run as a pipeline: a slow receiver holds only its own slot,
 * never the others. Any number of dispatchers (in the API process or in `npm run worker` processes)
 * share the work; a delivery is sent by one of them at a time.
 */
export function createWebhookDispatcher(deps: DispatcherDeps) {
  const { database, clock, guard, apiKeyFor, log } = deps;
  const batchSize = deps.batchSize ?? 100;
  const capacity = batchSize * (deps.loops ?? 4);
  const leaseMs = deps.leaseMs ?? ANSWER_TIMEOUT_MS * 3;
  const pollMs = deps.pollMs ?? 200;
  let running = false;
  let pump: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();
  const { record, flush } = createAttemptRecorder(deps);

  async function deliver(delivery: ClaimedDelivery, apiKey: Promise<string | undefined>): Promise<void> {
    const startedMs = clock.now();
    const t0 = performance.now();
    const outcome = await send(guard, delivery, await apiKey);
    const latencyMs = Math.round(performance.now() - t0);
    const delay = retryDelayAfter(delivery.attempts + 1);
    const ok = isAcknowledged(outcome.statusCode ?? undefined);
    await record(delivery, {
      startedAt: new Date(startedMs),
      statusCode: outcome.statusCode,
      latencyMs,
      error: ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode}`),
      responseSnippet: outcome.snippet,
      status: ok ? 'delivered' : delay === undefined ? 'exhausted' : 'pending',
      // Retries are timed from when the failed try started: exactly 15/60/300/900/3600 s apart.
      nextAttemptAt: new Date(ok || delay === undefined ? startedMs : startedMs + delay * 1000),
    });
  }

  /** Claims up to `limit` due deliveries and starts them; returns their promises. */
  async function claimAndStart(limit: number): Promise<Promise<void>[]> {
    const nowMs = clock.now();
    const claimed = await claimDueDeliveries(
      database.db,
      new Date(nowMs),
      new Date(nowMs + leaseMs),
      randomUUID(),
      limit,
    );
    const keys = new Map<string, Promise<string | undefined>>();
    return claimed.map((d) => {
      // A sandbox delivery is signed with the test key, as the merchant's test integration expects.
      const mode = d.test ? 'test' : 'live';
      let key = keys.get(`${mode}:${d.merchantId}`);
      if (!key) {
        key = apiKeyFor(d.merchantId, mode).catch(() => undefined);
        keys.set(`${mode}:${d.merchantId}`, key);
      }
      const p = deliver(d, key).finally(() => {
        inFlight.delete(p);
        wakeUp?.();
      });
      inFlight.add(p);
      return p;
    });
  }

  function pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
    });
  }

  async function run(): Promise<void> {
    while (running) {
      const room = capacity - inFlight.size;
      let started = 0;
      if (room >= Math.min(batchSize, capacity)) {
        try {
          started = (await claimAndStart(Math.min(room, batchSize))).length;
        } catch (err) {
          log?.warn({ err }, 'claiming webhook deliveries failed');
        }
      }
      // Full batch: more are probably due, claim again at once (while there is room).
      if (running && started < batchSize) await pause(pollMs);
      else if (running && capacity - inFlight.size < batchSize) await pause(pollMs);
    }
    await Promise.all(inFlight);
    await flush();
  }

  return {
    /** One round for tests and tools: claim a batch, send it, record every try; returns how many. */
    async runOnce(): Promise<number> {
      const started = await claimAndStart(batchSize);
      await Promise.all(started);
      return started.length;
    },
    /** Starts the pipeline in this process. */
    start(): void {
      if (running) return;
      running = true;
      pump = run();
    },
    /** Ends a pause early so that a new delivery goes out at once. */
    wake(): void {
      wakeUp?.();
    },
    /** Stops claiming, lets deliveries in flight finish and records them. */
    async stop(): Promise<void> {
      running = false;
      wakeUp?.();
      await pump;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;

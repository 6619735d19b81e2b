import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { request } from 'undici';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { signBody } from '../auth/signature.js';
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import { ANSWER_TIMEOUT_MS, isAcknowledged, retryDelayAfter } from './webhook-schedule.js';
import {
  type AttemptResult,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempt,
} from './webhooks-repository.js';

const SNIPPET_BYTES = 1024;
/** Answer bytes read before the connection is dropped: enough for any acknowledgement. */
const MAX_READ_BYTES = 64 * 1024;

export interface DispatcherDeps {
  database: Database;
  clock: Clock;
  guard: OutboundGuard;
  /** The merchant's current API key in clear (webhooks are signed with it), or undefined. */
  apiKeyFor: (merchantId: string) => Promise<string | undefined>;
  log?: FastifyBaseLogger;
  /** Deliveries claimed per round. */
  batchSize?: number;
  /** Parallel claim-and-send loops when started. */
  loops?: number;
  /** How long a claim is owned, ms: longer than the answer timeout, so a live worker never loses it. */
  leaseMs?: number;
  /** Pause between empty rounds, ms. */
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
 * The webhook dispatcher (decisions.md section 11; issue 3 section 3). Each round claims due
 * deliveries in one short statement, sends them outside any transaction through the outbound guard,
 * and records each try in one statement. Any number of dispatchers (in the API process or in
 * `npm run worker` processes) share the work; a delivery is sent by one of them at a time.
 */
export function createWebhookDispatcher(deps: DispatcherDeps) {
  const { database, clock, guard, apiKeyFor, log } = deps;
  const batchSize = deps.batchSize ?? 100;
  const leaseMs = deps.leaseMs ?? ANSWER_TIMEOUT_MS * 3;
  const pollMs = deps.pollMs ?? 200;
  let running = false;
  let loops: Promise<void>[] = [];
  let wakeUp: (() => void) | undefined;

  async function send(delivery: ClaimedDelivery, apiKey: string | undefined): Promise<SendOutcome> {
    if (!apiKey)
      return { statusCode: null, error: 'merchant has no active API key to sign with', snippet: null };
    try {
      const res = await request(delivery.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': signBody(apiKey, delivery.body) },
        body: delivery.body,
        dispatcher: guard.dispatcher,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
        headersTimeout: ANSWER_TIMEOUT_MS,
        bodyTimeout: ANSWER_TIMEOUT_MS,
      });
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const chunk of res.body) {
        chunks.push(chunk as Buffer);
        read += (chunk as Buffer).length;
        if (read >= MAX_READ_BYTES) {
          res.body.destroy();
          break;
        }
      }
      const snippet = Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8');
      return { statusCode: res.statusCode, error: null, snippet };
    } catch (err) {
      return { statusCode: null, error: describeError(err), snippet: null };
    }
  }

  async function deliver(delivery: ClaimedDelivery, apiKey: string | undefined): Promise<void> {
    const startedMs = clock.now();
    const t0 = performance.now();
    const outcome = await send(delivery, apiKey);
    const latencyMs = Math.round(performance.now() - t0);
    const tryNo = delivery.attempts + 1;
    const delay = retryDelayAfter(tryNo);
    const ok = isAcknowledged(outcome.statusCode ?? undefined);
    const result: AttemptResult = {
      startedAt: new Date(startedMs),
      statusCode: outcome.statusCode,
      latencyMs,
      error: ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode}`),
      responseSnippet: outcome.snippet,
      status: ok ? 'delivered' : delay === undefined ? 'exhausted' : 'pending',
      // Retries are timed from when the failed try started: exactly 15/60/300/900/3600 s apart.
      nextAttemptAt: new Date(ok || delay === undefined ? startedMs : startedMs + delay * 1000),
    };
    const owned = await recordAttempt(database.db, delivery, result);
    if (!owned) log?.warn({ deliveryId: delivery.id }, 'webhook lease lost before the result was recorded');
    deps.onAttempt?.(result);
  }

  /** One round: claim due deliveries, send them in parallel, record each. Returns how many were sent. */
  async function runOnce(): Promise<number> {
    const nowMs = clock.now();
    const claimed = await claimDueDeliveries(
      database.db,
      new Date(nowMs),
      new Date(nowMs + leaseMs),
      randomUUID(),
      batchSize,
    );
    if (claimed.length === 0) return 0;
    const keys = new Map<string, Promise<string | undefined>>();
    const keyFor = (merchantId: string) => {
      let key = keys.get(merchantId);
      if (!key) {
        key = apiKeyFor(merchantId).catch(() => undefined);
        keys.set(merchantId, key);
      }
      return key;
    };
    await Promise.all(claimed.map(async (d) => deliver(d, await keyFor(d.merchantId))));
    return claimed.length;
  }

  async function loop(): Promise<void> {
    while (running) {
      let sent = 0;
      try {
        sent = await runOnce();
      } catch (err) {
        log?.warn({ err }, 'webhook round failed');
      }
      if (sent < batchSize && running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  return {
    runOnce,
    /** Starts the claim-and-send loops in this process. */
    start(): void {
      if (running) return;
      running = true;
      loops = Array.from({ length: deps.loops ?? 4 }, () => loop());
    },
    /** Ends a pause early so that a new delivery goes out at once. */
    wake(): void {
      wakeUp?.();
    },
    /** Stops the loops after their current round. */
    async stop(): Promise<void> {
      running = false;
      wakeUp?.();
      await Promise.all(loops);
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;

import type { Clock } from '../../lib/clock.js';
import { money } from '../../lib/money.js';
import type { ConsoleServices } from './console-services.js';

/** How many rows a queue figure reads at most: beyond it the dashboard says "500+". */
const CAP = 500;

/** One queue on the dashboard: how many wait, how long the oldest has waited, where the list is. */
export interface QueueFigure {
  key: string;
  count: number;
  /** True when there are more than the figure read (shown as `500+`). */
  more: boolean;
  /** Seconds the oldest has waited; null when the queue is empty. */
  oldest_seconds: number | null;
  href: string;
}

function queue(key: string, href: string, createdAts: string[], nowMs: number): QueueFigure {
  const oldest = createdAts.reduce((min, at) => Math.min(min, Date.parse(at)), Number.POSITIVE_INFINITY);
  return {
    key,
    count: Math.min(createdAts.length, CAP),
    more: createdAts.length > CAP,
    oldest_seconds: Number.isFinite(oldest) ? Math.max(0, Math.round((nowMs - oldest) / 1000)) : null,
    href,
  };
}

/** The dashboard's queues, each from the creation times of what waits in it. */
function queueFigures(
  waiting: {
    receipts: Array<{ created_at: string }>;
    payouts: Array<{ created_at: string }>;
    review: Array<{ created_at: string }>;
    chain: Array<{ at: string }>;
    appeals: Array<{ created_at: string }>;
  },
  now: number,
): QueueFigure[] {
  const at = (rows: Array<{ created_at: string }>) => rows.map((r) => r.created_at);
  return [
    queue('receipts', '/backoffice/receipts?status=under_review', at(waiting.receipts), now),
    queue('payouts', '/backoffice/payouts?status=pending', at(waiting.payouts), now),
    queue('bank_messages', '/backoffice/device-events?status=review', at(waiting.review), now),
    queue(
      'chain',
      '/backoffice/crypto',
      waiting.chain.map((t) => t.at),
      now,
    ),
    queue('appeals', '/backoffice/appeals?status=open', at(waiting.appeals), now),
  ];
}

/**
 * The operators' dashboard (docs/decisions.md section 32): every queue with its count and oldest age, today's
 * volume and conversion per payment type, requisites without a live device, failing webhook
 * deliveries, stale rates and chain watchers to look at, each with the link to its list. Read through the modules' public
 * services, as the admin API reads them; the page refreshes it over Server-Sent Events.
 */
export function createDashboard(services: ConsoleServices, clock: Clock) {
  return {
    async figures() {
      const now = clock.now();
      const [
        receipts,
        payouts,
        review,
        crypto,
        appeals,
        today,
        requisites,
        devices,
        pending,
        exhausted,
        rates,
        chainHealth,
      ] = await Promise.all([
        services.receipts.list('under_review', CAP + 1),
        services.payouts.list('pending', CAP + 1),
        services.deviceReview.list({ status: 'review', limit: CAP + 1 }),
        services.crypto.overview(),
        services.appeals.list({ status: 'open' }, CAP + 1),
        services.orders.platformToday(),
        services.requisites.list(),
        services.deviceAdmin.list(),
        services.webhooks.list({ status: 'pending' }, CAP + 1),
        services.webhooks.list({ status: 'exhausted' }, CAP + 1),
        services.rates.list(),
        services.chains.health(),
      ]);
      const chain = crypto.transactions_needing_attention.filter(
        (t) =>
          ['unmatched', 'late', 'partial', 'dropped', 'review'].includes(t.outcome ?? '') ||
          t.reorged_at !== null,
      );
      const covered = new Set(devices.filter((d) => d.state === 'online').flatMap((d) => d.requisite_ids));
      const deadlines = appeals.map((a) => Date.parse(a.deadline_at));
      const failing = [...pending.filter((d) => d.attempts > 0), ...exhausted];
      return {
        generated_at: new Date(now).toISOString(),
        queues: queueFigures({ receipts, payouts, review, chain, appeals }, now),
        appeals_next_deadline_seconds: deadlines.length
          ? Math.round((Math.min(...deadlines) - now) / 1000)
          : null,
        today,
        requisites_without_device: requisites
          .filter((r) => r.enabled && !covered.has(r.id))
          .map((r) => ({ id: r.id, bank: r.bank, address: r.address })),
        webhooks_failing: failing.length,
        stale_rates: rates.filter((r) => !r.fresh).map((r) => `${r.base}/${r.quote}`),
        // docs/decisions.md section 25: a watcher lagging past its limit, failing, or silent (the chain_watcher_alert metric).
        chains_alerting: Object.entries(chainHealth.alert)
          .filter(([, on]) => on === 1)
          .map(([chain]) => chain),
        holders_at_limit: holdersAtLimit(await services.holders.list()),
      };
    },
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;

/** Share of the limit at which a holder shows on the dashboard (docs/decisions.md "Holders' limits in the claim"). */
const NEAR_LIMIT = 0.8;

/**
 * Holders near (at least 80 %) or over their limit: held plus pending against limit plus deposit,
 * fullest first. A holder without a limit never shows. `percent` is rounded down to a whole number.
 */
export function holdersAtLimit(
  list: Array<{
    id: string;
    name: string;
    held: string;
    pending: string;
    exposure_limit: string | null;
    security_deposit: string | null;
  }>,
) {
  const out: Array<{
    id: string;
    name: string;
    exposure: string;
    cap: string;
    percent: number;
    over: boolean;
  }> = [];
  for (const h of list) {
    if (h.exposure_limit === null) continue;
    const exposure = money(h.held).plus(h.pending);
    const cap = money(h.exposure_limit).plus(h.security_deposit ?? 0);
    const share = cap.isZero()
      ? exposure.gt(0)
        ? Number.POSITIVE_INFINITY
        : 0
      : exposure.div(cap).toNumber();
    if (share < NEAR_LIMIT) continue;
    out.push({
      id: h.id,
      name: h.name,
      exposure: exposure.toFixed(),
      cap: cap.toFixed(),
      percent: Number.isFinite(share) ? Math.floor(share * 100) : 100,
      over: exposure.gt(cap),
    });
  }
  return out.sort((a, b) => b.percent - a.percent);
}

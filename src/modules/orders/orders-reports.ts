import { and, count, eq, gte, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { orders } from '../../db/tables/orders.js';
import { money } from '../../lib/money.js';

/** The figures of one payment type (or of all) over a period (docs/decisions.md section 30). */
export interface ReportFigures {
  /** Orders created in the period. */
  created: number;
  /** Of those, the ones that succeeded. */
  succeeded: number;
  /** succeeded / created, 0..1 with 4 decimals; 0 when nothing was created. */
  conversion: number;
  /** Sum of `amount` of the successful ones, per currency: decimal strings, as the API shows amounts. */
  volume: Record<string, string>;
  /** Mean seconds from creation to success of the successful ones; null when none. */
  avg_seconds_to_pay: number | null;
}

/** A merchant's report over one period: totals and each payment type (PAYIN and PAYOUT apart). */
export interface PeriodReport {
  from: string;
  to: string;
  total: ReportFigures;
  by_type: Array<ReportFigures & { type: string; direction: string }>;
}

interface Row {
  type: string;
  direction: string;
  currency: string;
  created: number;
  succeeded: number;
  volume: string | null;
  seconds: string | null;
}

function figures(rows: Row[]): ReportFigures {
  const created = rows.reduce((n, r) => n + r.created, 0);
  const succeeded = rows.reduce((n, r) => n + r.succeeded, 0);
  const volume: Record<string, string> = {};
  let seconds = money(0);
  for (const r of rows) {
    if (r.volume !== null)
      volume[r.currency] = money(volume[r.currency] ?? 0)
        .plus(r.volume)
        .toFixed();
    if (r.seconds !== null) seconds = seconds.plus(r.seconds);
  }
  return {
    created,
    succeeded,
    conversion: created === 0 ? 0 : Math.round((succeeded / created) * 10_000) / 10_000,
    volume,
    avg_seconds_to_pay: succeeded === 0 ? null : Math.round(seconds.dividedBy(succeeded).toNumber()),
  };
}

/**
 * The merchant's live orders created in [from, to): per type, direction and currency, how many
 * were created and succeeded, the volume that succeeded and the time they took. Sandbox orders are
 * left out (docs/decisions.md section 29: test data never counts in live reports); `test` reports only them. One grouped query on the
 * (merchant_id, created_at) index.
 */
export async function merchantReport(
  ex: Executor,
  merchantId: string | null,
  from: Date,
  to: Date,
  test = false,
): Promise<PeriodReport> {
  const success = sql`${orders.status} = 'success'`;
  const rows = await ex
    .select({
      type: orders.type,
      direction: orders.direction,
      currency: orders.currency,
      created: count(),
      succeeded: sql<number>`count(*) FILTER (WHERE ${success})`.mapWith(Number),
      volume: sql<string | null>`sum(${orders.amount}) FILTER (WHERE ${success})`,
      seconds: sql<
        string | null
      >`sum(extract(epoch FROM ${orders.finishedAt} - ${orders.createdAt})) FILTER (WHERE ${success})`,
    })
    .from(orders)
    .where(
      and(
        // null: every merchant (the operators' dashboard, docs/decisions.md section 32).
        merchantId === null ? undefined : eq(orders.merchantId, merchantId),
        eq(orders.test, test),
        gte(orders.createdAt, from),
        lt(orders.createdAt, to),
      ),
    )
    .groupBy(orders.type, orders.direction, orders.currency);
  const typed = rows.map((r) => ({ ...r, created: Number(r.created) }));
  const keys = [...new Set(typed.map((r) => `${r.direction}:${r.type}`))].sort();
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total: figures(typed.filter((r) => r.direction === 'PAYIN')),
    by_type: keys.map((key) => {
      const [direction = '', type = ''] = key.split(':');
      return {
        type,
        direction,
        ...figures(typed.filter((r) => r.type === type && r.direction === direction)),
      };
    }),
  };
}

/**
 * Live PAYIN volume and counts per UTC day in [from, to), for the dashboard's chart: `days` are
 * ISO dates, the arrays line up with them (missing days are 0).
 */
export async function dailySeries(ex: Executor, merchantId: string, from: Date, to: Date, test = false) {
  const day = sql<string>`to_char(${orders.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await ex
    .select({
      day,
      created: count(),
      succeeded: sql<number>`count(*) FILTER (WHERE ${orders.status} = 'success')`.mapWith(Number),
    })
    .from(orders)
    .where(
      and(
        eq(orders.merchantId, merchantId),
        eq(orders.test, test),
        eq(orders.direction, 'PAYIN'),
        gte(orders.createdAt, from),
        lt(orders.createdAt, to),
      ),
    )
    .groupBy(day);
  const days: string[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return {
    days,
    created: days.map((d) => Number(byDay.get(d)?.created ?? 0)),
    succeeded: days.map((d) => byDay.get(d)?.succeeded ?? 0),
  };
}

/**
 * Types of the self-service calls: event subscriptions and their delivery log, the
 * sandbox's outcomes, the reports. docs/api.md "Event subscriptions", "Sandbox", "Reports".
 */
import type { EventType } from './events.js';

/** An endpoint subscribed to events. */
export interface Subscription {
  id: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  created_at: string;
}

/** One try of a delivery. */
export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The first 1 KB of your endpoint's answer. */
  response: string | null;
}

/** A delivery of an event with its attempts (`GET /merchant/webhooks/deliveries`). */
export interface Delivery {
  id: string;
  order_id: string | null;
  url: string;
  body: string;
  status: 'pending' | 'delivered' | 'exhausted';
  attempts: number;
  next_attempt_at: string | null;
  event_type: EventType | null;
  event_id: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_log: DeliveryAttempt[];
}

/** What a test order can be driven to with a test key (`POST /merchant/sandbox/orders/{id}/outcome`). */
export const SANDBOX_OUTCOMES = [
  'paid',
  'paid_other_amount',
  'expired',
  'cancelled',
  'receipt_accepted',
  'receipt_rejected',
  'payout_sent',
  'payout_failed',
] as const;

export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/** The figures of a period. */
export interface ReportFigures {
  created: number;
  succeeded: number;
  /** succeeded / created, 0..1. */
  conversion: number;
  /** Successful amount per currency (decimal strings). */
  volume: Record<string, string>;
  avg_seconds_to_pay: number | null;
}

export interface PeriodReport {
  from: string;
  to: string;
  total: ReportFigures;
  by_type: Array<ReportFigures & { type: string; direction: string }>;
}

/** `GET /merchant/reports`: today and the last 30 days (your live orders; a test key: the sandbox's). */
export interface Reports {
  merchant_id: string;
  generated_at: string;
  today: PeriodReport;
  last_30_days: PeriodReport;
  daily: { days: string[]; created: number[]; succeeded: number[] };
}

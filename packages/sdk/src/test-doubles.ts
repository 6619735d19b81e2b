// Test doubles of the SDK's unit tests (not a test file): a recording fetch, a recording sleep, answers.
import assert from 'node:assert/strict';
import { createMerchantClient, type FetchLike } from './index.js';

/** The API key of the unit tests. */
export const KEY = 'test-key';
// Vectors computed outside Node: printf '%s' 'test-key|<body>' | sha256sum
export const EMPTY_SIG = '3f1df72d4540de1512e218d018a1c76d81c29ccae0cf525fc30f6e86d5423e76';
export const ORDER_BODY = '{"merchant_id":"shop1","amount":1000,"type":"sim"}';
export const ORDER_SIG = '6279e0b62bea2fc3b5ce19085af77d59deee4a60aee3e8c6df4b871101249239';
export const UTF8_BODY = '{"comment":"Привет €"}';
export const UTF8_SIG = '4c558eb94f4f3b95218336dcc987c1c46736940b2dd90bc88e408bd1fdfdbbfc';

export interface Recorded {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

export type Answer = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };

/** A fetch that records every call and answers from `answers` (the last one repeats). */
export function fakeFetch(answers: Answer[] | ((index: number) => Answer)) {
  const calls: Recorded[] = [];
  const fn: FetchLike = async (url, init) => {
    calls.push({ url, init, headers: { ...(init.headers as Record<string, string>) } });
    const i = calls.length - 1;
    const a =
      typeof answers === 'function' ? answers(i) : (answers[Math.min(i, answers.length - 1)] as Answer);
    const text = a.text ?? (a.body === undefined ? '' : JSON.stringify(a.body));
    return new Response(text, {
      status: a.status,
      headers: { 'content-type': a.text === undefined ? 'application/json' : 'text/html', ...a.headers },
    });
  };
  return { fn, calls };
}

/** A sleep that records the delays and returns at once. */
export function fakeSleep() {
  const delays: number[] = [];
  return { delays, fn: async (ms: number) => void delays.push(ms) };
}

export const TOO_MANY = {
  status: 429,
  body: {
    ok: false,
    success: false,
    status: 429,
    message: 'TOO_MANY_REQUESTS',
    error: 'Too many requests, slow down.',
  },
};
export const BALANCE = {
  merchant_id: 'shop1',
  balance: 975,
  reserved: 0,
  available: 975,
  currency: 'RUB',
  usdtBalance: 0,
  allowUsdt: false,
  balances: [{ currency: 'RUB', balance: 975, reserved: 0, available: 975 }],
};
export const BALANCE_OK = { status: 200, body: { success: true, ok: true, data: BALANCE, ...BALANCE } };

export function client(
  fetch: FetchLike,
  extra: { sleep?: (ms: number) => Promise<void>; maxRetries?: number } = {},
) {
  return createMerchantClient({
    baseUrl: 'https://pay.example.test/',
    merchantId: 'shop1',
    apiKey: KEY,
    fetch,
    sleep: extra.sleep ?? (async () => assert.fail('no sleep expected')),
    ...(extra.maxRetries === undefined ? {} : { maxRetries: extra.maxRetries }),
  });
}

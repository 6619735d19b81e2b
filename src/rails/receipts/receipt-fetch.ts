import type { request as undiciRequest } from 'undici';
import type { Spooled } from '../../http/multipart.js';
import { AppError } from '../../lib/errors.js';
import { undici } from '../../lib/lazy-require.js';
import type { OutboundGuard } from '../../platform/outbound/index.js';
import { MAX_RECEIPT_BYTES } from './receipt-content.js';
import type { ReceiptStorage } from './receipt-storage.js';

/** Whole-download limit and redirect limit (docs/api.md receipt rule 3; docs/decisions.md section 9). */
export const RECEIPT_URL_TIMEOUT_MS = 15_000;
export const MAX_REDIRECTS = 3;

/**
 * Drops an answer body we will not read. An undici body destroyed with nobody listening emits an
 * unhandled 'error' (UND_ERR_ABORTED) that would crash the process, so a listener goes on first.
 */
function dropBody(body: { on(event: 'error', fn: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function isForbidden(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { name?: string }).name === 'ForbiddenAddressError') return true;
  }
  return false;
}

function isTimeout(err: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return true;
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const name = (e as { name?: string }).name;
    const code = (e as { code?: string }).code;
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT'
    ) {
      return true;
    }
  }
  return false;
}

/**
 * A receipt URL: absolute http(s) with a host and without credentials (a `user:secret@` part would be
 * stored and shown to operators). Else RECEIPT_URL_INVALID.
 */
export function parseReceiptUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('RECEIPT_URL_INVALID');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    throw new AppError('RECEIPT_URL_INVALID');
  if (url.username !== '' || url.password !== '') throw new AppError('RECEIPT_URL_INVALID');
  return url;
}

/**
 * Downloads a receipt URL into the storage's spool (docs/decisions.md section 9): every connection,
 * redirects included (at most 3), goes through the outbound guard; 15 s for the whole download;
 * reading stops past 5 MB. Throws RECEIPT_URL_INVALID / _FORBIDDEN_HOST / _TIMEOUT / _HTTP_ERROR /
 * _TOO_LARGE.
 */
export async function downloadReceipt(
  urlText: string,
  guard: OutboundGuard,
  storage: ReceiptStorage,
  timeoutMs = RECEIPT_URL_TIMEOUT_MS,
): Promise<Spooled> {
  let url = parseReceiptUrl(urlText);
  const signal = AbortSignal.timeout(timeoutMs);
  // undici is loaded at the first fetched receipt, not at start.
  const { request } = undici();
  for (let hop = 0; ; hop++) {
    let res: Awaited<ReturnType<typeof undiciRequest>>;
    try {
      res = await request(url, {
        method: 'GET',
        dispatcher: guard.dispatcher,
        signal,
        headers: { accept: 'application/pdf,image/jpeg,image/png' },
      });
    } catch (err) {
      if (isForbidden(err)) throw new AppError('RECEIPT_URL_FORBIDDEN_HOST');
      if (isTimeout(err, signal)) throw new AppError('RECEIPT_URL_TIMEOUT');
      throw new AppError('RECEIPT_URL_HTTP_ERROR');
    }
    if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      dropBody(res.body);
      if (hop >= MAX_REDIRECTS) throw new AppError('RECEIPT_URL_HTTP_ERROR');
      url = parseReceiptUrl(new URL(String(res.headers.location), url).toString());
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      dropBody(res.body);
      throw new AppError('RECEIPT_URL_HTTP_ERROR');
    }
    const declaredLength = Number(res.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declaredLength) && declaredLength > MAX_RECEIPT_BYTES) {
      dropBody(res.body);
      throw new AppError('RECEIPT_URL_TOO_LARGE');
    }
    let spooled: Spooled;
    try {
      spooled = await storage.spool(res.body, MAX_RECEIPT_BYTES, true);
    } catch (err) {
      dropBody(res.body);
      if (isTimeout(err, signal)) throw new AppError('RECEIPT_URL_TIMEOUT');
      throw new AppError('RECEIPT_URL_HTTP_ERROR');
    }
    if (spooled.overflow) {
      dropBody(res.body);
      await storage.discard(spooled);
      throw new AppError('RECEIPT_URL_TOO_LARGE');
    }
    return spooled;
  }
}

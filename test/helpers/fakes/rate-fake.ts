import { startReceiver } from '../receiver.js';

/** How a fake rate source answers its next requests. */
export type FakeMode = 'ok' | '429' | '500' | 'garbage';

/**
 * A loopback HTTP server answering one documented path with `answer()` (mode ok), or a 429 (the
 * documented rate-limit answer), a 500, or a 200 whose body is not the documented shape.
 */
export async function startRateFake(
  path: string,
  answer: (url: URL) => { body: string | Buffer; contentType: string } | undefined,
) {
  const state: { mode: FakeMode } = { mode: 'ok' };
  const server = await startReceiver((req) => {
    const url = new URL(req.url, 'http://fake');
    if (req.method !== 'GET' || url.pathname !== path) return { status: 404, body: 'not found' };
    if (state.mode === '429')
      return { status: 429, body: '{"status":{"error_code":429,"error_message":"rate limited"}}' };
    if (state.mode === '500') return { status: 500, body: 'internal error' };
    if (state.mode === 'garbage')
      return { status: 200, body: '<html>maintenance</html>', headers: { 'content-type': 'text/html' } };
    const a = answer(url);
    if (!a) return { status: 400, body: 'bad request' };
    return { status: 200, body: a.body, headers: { 'content-type': a.contentType } };
  });
  return {
    url: server.url,
    received: server.received,
    close: () => server.close(),
    set mode(mode: FakeMode) {
      state.mode = mode;
    },
    get mode() {
      return state.mode;
    },
  };
}

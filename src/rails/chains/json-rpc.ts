import { ChainSourceError } from './chain-source.js';
import {
  type ProviderRequestOptions,
  type ProviderTarget,
  providerRequest,
  snippet,
} from './provider-http.js';

/** One JSON-RPC 2.0 endpoint (an EVM node or provider, java-tron's /jsonrpc). */
export interface JsonRpc {
  /**
   * Calls `method` with `params` (already canonical: evm-hex.ts) and answers its `result`. Throws
   * ChainSourceError for an HTTP error, a body that is not a JSON-RPC answer to this request, or a
   * JSON-RPC error (its code and message, as the node wrote them).
   */
  call<T = unknown>(method: string, params: readonly unknown[]): Promise<T>;
}

/**
 * A JSON-RPC client over `providerRequest` (the chain's budget, no redirects, 429 backoff): POST of
 * `{"jsonrpc":"2.0","id":n,"method","params"}`, one request per call (no batches: providers count
 * and cap them differently).
 */
export function createJsonRpc(target: ProviderTarget, opts: ProviderRequestOptions): JsonRpc {
  let nextId = 1;
  return {
    async call<T>(method: string, params: readonly unknown[]): Promise<T> {
      const id = nextId++;
      const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
      const answer = await providerRequest(target, { method: 'POST', body, what: method }, opts);
      if (answer.status < 200 || answer.status > 299) throw httpError(method, answer.status, answer.text);
      let reply: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
      try {
        reply = JSON.parse(answer.text);
      } catch {
        throw new ChainSourceError(
          `${method}: the node answered something that is not JSON (${snippet(answer.text)}): is the URL a JSON-RPC endpoint?`,
        );
      }
      if (typeof reply !== 'object' || reply === null || Array.isArray(reply))
        throw new ChainSourceError(
          `${method}: the node answered ${snippet(answer.text)}, not a JSON-RPC answer`,
        );
      if (reply.error !== undefined && reply.error !== null) throw rpcError(method, reply.error);
      if (reply.id !== id || !('result' in reply))
        throw new ChainSourceError(
          `${method}: the node answered ${snippet(answer.text)}, not the answer to request ${id}`,
        );
      return reply.result as T;
    },
  };
}

function httpError(method: string, status: number, text: string): ChainSourceError {
  const hint =
    status === 401 || status === 403
      ? ' (check the API key)'
      : status >= 500
        ? ' (the provider or its node is failing: retried next loop)'
        : '';
  return new ChainSourceError(
    `${method}: the provider answered HTTP ${status}${hint}: ${snippet(text)}`,
    status,
  );
}

function rpcError(method: string, error: { code?: unknown; message?: unknown }): ChainSourceError {
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  const code = typeof error.code === 'number' ? ` (JSON-RPC ${error.code})` : '';
  if (method === 'eth_getLogs')
    return new ChainSourceError(
      `eth_getLogs refused: ${message}${code}. Public BSC endpoints refuse eth_getLogs; use a provider or your own node that serves logs`,
    );
  return new ChainSourceError(`${method}: the node refused the request: ${message}${code}`);
}

import type { App } from '../../http/schemas.js';
import type { ChainsService } from '../../rails/chains/index.js';
import { checkCsrf, requirePermission } from './backoffice-session.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';

const int = (v: string | undefined) => {
  const s = str(v);
  return s === undefined ? undefined : Number(s);
};

/**
 * Console pages for the built-in chain watchers (docs/decisions.md sections 25 and 34): each chain's head, cursor, lag, last
 * error and success and the latest transfers seen, and a form with the same settings as
 * `PUT /admin/chains/{chain}` (the same service).
 */
export function chainPages(pages: App, services: { chains: ChainsService }) {
  pages.get('/backoffice/chains', async (request, reply) => {
    requirePermission(request, 'pool.read');
    return render(request, reply, 'chains.eta', { list: await services.chains.list() });
  });
  pages.post('/backoffice/chains/:chain', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    const { chain } = request.params as { chain: string };
    return act(reply, '/backoffice/chains', async () => {
      // Empty fields keep their values; the API key is only ever replaced, never shown.
      const input = {
        url: str(form.url),
        api_key: str(form.api_key),
        confirmations: int(form.confirmations),
        token_contract: str(form.token_contract),
        poll_seconds: int(form.poll_seconds),
        rps: int(form.rps),
        enabled: form.enabled === undefined ? undefined : form.enabled === 'true',
      };
      await services.chains.configure(chain, input, user.actor);
      return { key: 'chainSaved', values: { chain } };
    });
  });
}

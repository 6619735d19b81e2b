import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { Field, FormBody, PathParam } from '../../platform/sessions/index.js';
import type { ChainsService } from '../../rails/chains/index.js';
import { needs, userOf } from './backoffice-session.js';
import { act } from './console-messages.js';
import { render, str } from './console-pages.js';

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
  pages.get('/backoffice/chains', { preValidation: needs('pool.read') }, async (request, reply) => {
    return render(request, reply, 'chains.eta', { list: await services.chains.list() });
  });
  pages.post(
    '/backoffice/chains/:chain',
    {
      preValidation: needs('pool.manage'),
      schema: {
        params: Type.Object({ chain: PathParam }),
        body: FormBody({
          api_key: Field(),
          confirmations: Field(),
          enabled: Field(),
          poll_seconds: Field(),
          rps: Field(),
          token_contract: Field(),
          url: Field(),
        }),
      },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const { chain } = request.params;
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
    },
  );
}

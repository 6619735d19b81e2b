import type { App } from '../../http/schemas.js';
import { checkCsrf, requirePermission } from './backoffice-session.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';
import { holdersAtLimit } from './dashboard.js';

const METHODS = ['bank_transfer', 'cash', 'usdt'] as const;

/**
 * Console pages of requisite holders (docs/decisions.md "Holders' money", "Holders' limits in the
 * claim"): the list with held, limit, deposit, pending and the last settlement; a holder's page with
 * their books, requisites and phones and the forms to record a settlement or a correction. The same
 * service and permissions as the admin API: reads `pool.read`, settlements `pool.manage`,
 * corrections the admin role (the service refuses any other).
 */
export function holderPages(pages: App, services: Pick<ConsoleServices, 'holders' | 'deviceAdmin'>) {
  pages.get('/backoffice/holders', async (request, reply) => {
    requirePermission(request, 'pool.read');
    const list = await services.holders.list();
    const near = new Map(holdersAtLimit(list).map((h) => [h.id, h]));
    return render(request, reply, 'holders.eta', { list, near });
  });

  pages.get('/backoffice/holders/:id', async (request, reply) => {
    requirePermission(request, 'pool.read');
    const { id } = request.params as { id: string };
    const holder = await services.holders.get(id);
    const mine = new Set(holder.requisites.map((r) => r.id));
    const phones = (await services.deviceAdmin.list()).filter((d) =>
      d.requisite_ids.some((r) => mine.has(r)),
    );
    const lastSettlement = holder.settlements.find((s) => s.kind === 'settlement') ?? null;
    return render(request, reply, 'holder.eta', { holder, phones, lastSettlement, methods: METHODS });
  });

  pages.post('/backoffice/holders/:id/settlements', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
      const method = METHODS.find((m) => m === form.method) ?? 'bank_transfer';
      const txHash = str(form.tx_hash);
      await services.holders.settle(
        id,
        {
          amount: str(form.amount) ?? '',
          method,
          reference: str(form.reference) ?? '',
          ...(txHash ? { tx_hash: txHash } : {}),
        },
        user.actor,
      );
      return { key: 'holderSettled', values: { amount: str(form.amount) ?? '' } };
    });
  });

  pages.post('/backoffice/holders/:id/corrections', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
      await services.holders.correct(
        id,
        { amount: str(form.amount) ?? '', reason: str(form.reason) ?? '' },
        user.actor,
      );
      return { key: 'holderCorrected', values: { amount: str(form.amount) ?? '' } };
    });
  });
}

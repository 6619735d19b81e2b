import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody } from '../../platform/sessions/index.js';
import type { PortalService } from './portal-service.js';
import { allowRoles, portalUserOf, renderPortal } from './portal-session.js';

/**
 * The owner's "Payment page" settings (docs/decisions.md section 31): the name and logo payers see on the form and
 * the merchant's return URL, validated by the merchants service; a refused value is shown beside the
 * form with what was typed kept.
 */
export function portalBrandingPages(pages: App, deps: { portal: PortalService }) {
  const { portal } = deps;

  pages.get('/portal/payment-page', { preValidation: allowRoles('owner') }, async (request, reply) => {
    const user = portalUserOf(request);
    return renderPortal(request, reply, 'payment-page.eta', {
      values: await portal.branding(user),
      error: null,
    });
  });

  pages.post(
    '/portal/payment-page',
    {
      preValidation: allowRoles('owner'),
      schema: { body: FormBody({ display_name: Field(), logo_url: Field(), return_url: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const values = {
        display_name: String(form.display_name ?? ''),
        logo_url: String(form.logo_url ?? '').trim(),
        return_url: String(form.return_url ?? '').trim(),
      };
      try {
        await portal.setBranding(user, values, request.ip);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        const error = (err.details ?? []).map((d) => `${d.field}: ${d.problem}`).join('; ');
        return renderPortal(request, reply.status(400), 'payment-page.eta', { values, problem: error });
      }
      return reply.redirect('/portal/payment-page?msg=branding_saved', 303);
    },
  );
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/schemas.js';
import { Field, FormBody } from '../../platform/sessions/index.js';
import type { PortalService, ShownOnceKey } from './portal-service.js';
import { allowRoles, type Form, portalCookie, portalUserOf, renderPortal } from './portal-session.js';

/** The cookie that carries a new key, sealed, from the POST to the one GET that shows it. */
const NEW_KEY_COOKIE = 'portal_new_key';
/** Grace periods offered by the rotation form, in seconds (0: the old key stops at once). */
export const GRACE_CHOICES = [0, 300, 3600, 86_400, 604_800] as const;

function newKeyCookie(request: FastifyRequest, maxAge: number) {
  return { ...portalCookie(request, maxAge), path: '/portal/keys' };
}

/**
 * Post/redirect/get for a key shown once: the POST seals the new key (SECRET_KEY's box, bound to
 * this session, 5 minutes) into an HttpOnly cookie on /portal/keys and redirects; the GET opens it,
 * shows the key and clears the cookie, so a reload shows it no more and issues nothing.
 */
function redirectShowingOnce(
  request: FastifyRequest,
  reply: FastifyReply,
  portal: PortalService,
  user: Parameters<PortalService['sealShownOnce']>[0],
  key: ShownOnceKey,
) {
  void reply.setCookie(NEW_KEY_COOKIE, portal.sealShownOnce(user, key), newKeyCookie(request, 300));
  return reply.redirect('/portal/keys', 303);
}

/**
 * The API keys page (README "The merchant portal"): every key of the merchant (prefix, mode, status
 * badge, created, last used, grace), the rotation with a confirmation and a grace period chosen from
 * a list (the owner), the sandbox key (owner and developer). A new key is shown once, after a
 * redirect, in a read-only field with a copy button.
 */
export function portalKeysPages(pages: App, deps: { portal: PortalService }) {
  const { portal } = deps;

  pages.get('/portal/keys', { preValidation: allowRoles('owner', 'developer') }, async (request, reply) => {
    const user = portalUserOf(request);
    const q = request.query as Form;
    const sealed = request.cookies[NEW_KEY_COOKIE];
    const shown = sealed ? portal.openShownOnce(user, sealed) : null;
    if (sealed) void reply.clearCookie(NEW_KEY_COOKIE, newKeyCookie(request, 0));
    const grace = Number.parseInt(q.grace ?? '0', 10);
    return renderPortal(request, reply, 'keys.eta', {
      keys: await portal.keys(user),
      confirm: q.confirm === '1',
      grace: GRACE_CHOICES.includes(grace as (typeof GRACE_CHOICES)[number]) ? grace : 0,
      graceChoices: GRACE_CHOICES,
      shown,
    });
  });

  pages.post(
    '/portal/keys/rotate',
    {
      preValidation: allowRoles('owner'),
      schema: { body: FormBody({ confirmed: Field(), grace: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = portalUserOf(request);
      const grace = Number.parseInt(form.grace ?? '0', 10);
      if (form.confirmed !== 'yes')
        return reply.redirect(`/portal/keys?confirm=1&grace=${Number.isFinite(grace) ? grace : 0}`, 303);
      const rotated = await portal.rotateKey(user, Number.isFinite(grace) ? grace : -1, request.ip);
      return redirectShowingOnce(request, reply, portal, user, {
        api_key: rotated.api_key,
        mode: rotated.mode,
        previous_key_valid_until: rotated.previous_key_valid_until,
      });
    },
  );

  pages.post(
    '/portal/keys/test',
    { preValidation: allowRoles('owner', 'developer'), schema: { body: FormBody({}) } },
    async (request, reply) => {
      const user = portalUserOf(request);
      const issued = await portal.issueTestKey(user, request.ip);
      return redirectShowingOnce(request, reply, portal, user, {
        api_key: issued.api_key,
        mode: issued.mode,
        previous_key_valid_until: null,
      });
    },
  );
}

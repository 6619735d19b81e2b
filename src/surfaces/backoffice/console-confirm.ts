import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Permission } from '../../modules/operators/index.js';
import { requirePermission } from './backoffice-session.js';
import { type Form, render } from './console-pages.js';

// Destructive and money-moving actions ask first (docs/decisions.md section 32), and every `back` a form names is
// a console path.

/**
 * Where a form may send the browser back to: a path inside the console (`/backoffice...`), never
 * another origin (`//evil`, `/\\evil`, `https:`), else `fallback`. Guards every `back` field.
 */
export function safeBack(value: string | undefined, fallback: string): string {
  if (!value) return fallback;
  // Only path characters (no backslash, no scheme), and no '//' that a browser could read as a host.
  return /^\/backoffice(?:[/?#][\w\-./?=&%#~:+,;@]*)?$/.test(value) && !value.includes('//')
    ? value
    : fallback;
}

/** The actions that ask first; each has a title and its changes in the catalogue (`confirm_<kind>_...`). */
export type ConfirmKind =
  | 'rotateKey'
  | 'adjust'
  | 'disableRequisite'
  | 'resetMfa'
  | 'confirmPayin'
  | 'confirmLate'
  | 'confirmPayout'
  | 'cancelOrder';

/** What a confirmation page says before a destructive or money-moving action (docs/decisions.md section 32). */
export interface Confirmation {
  kind: ConfirmKind;
  /** The holes of the catalogue's title and changes (ids, amounts, the reason typed). */
  values: Record<string, string>;
  /** Where "Cancel" goes (a console path). */
  back: string;
  /**
   * What the action needs: checked before the page is drawn, so a role that may not act gets 403,
   * never an "are you sure?" page (docs/decisions.md section 32).
   */
  permission: Permission;
}

/**
 * Asks first: a post without `confirmed=yes` is answered with a page that shows what will change and
 * re-posts the same fields with `confirmed=yes`; the action runs only then. Returns the page's
 * answer, or null when the post is confirmed.
 */
export function confirmFirst(
  request: FastifyRequest,
  reply: FastifyReply,
  form: Form,
  confirmation: Confirmation,
) {
  requirePermission(request, confirmation.permission);
  if (form.confirmed === 'yes') return null;
  const fields = Object.entries(form).filter(
    ([k, v]) => k !== '_csrf' && k !== 'confirmed' && v !== undefined,
  );
  return render(request, reply, 'confirm.eta', {
    ...confirmation,
    back: safeBack(confirmation.back, '/backoffice'),
    action: request.url.split('?')[0],
    fields,
  });
}

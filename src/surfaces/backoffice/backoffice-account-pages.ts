import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import { ENROL_PATH, userOf } from './backoffice-session.js';
import { act, withFlash } from './console-messages.js';
import { preferenceCookie, render, str, TIME_ZONES, TZ_COOKIE } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

/** The account page: the operator, their sessions and API tokens. */
function overviewPage(pages: App, { operators }: ConsoleServices) {
  pages.get('/backoffice/account', async (request, reply) => {
    const user = userOf(request);
    const [sessions, tokens] = await Promise.all([
      operators.sessionsOf(user.operator),
      operators.tokensOf(user.operator.username),
    ]);
    return render(request, reply, 'account.eta', {
      operator: {
        username: user.operator.username,
        role: user.operator.role,
        two_factor: user.operator.totpSealed !== null,
      },
      mfaRequired: operators.mfaOwed({ ...user.operator, totpSealed: null }),
      sessions,
      tokens,
      current: user.sessionId,
      codes: null,
      zones: TIME_ZONES,
    });
  });
}

/** Two-factor: enrolment (QR, then recovery codes shown once) and new recovery codes. */
function twoFactorPages(pages: App, { operators }: ConsoleServices) {
  pages.get(ENROL_PATH, async (request, reply) => {
    const user = userOf(request);
    if (user.operator.totpSealed) return reply.redirect('/backoffice/account', 303);
    const totp = await operators.startEnrolment(user.operator);
    return render(request, reply, 'two-factor.eta', { totp, required: operators.mfaOwed(user.operator) });
  });

  pages.post(ENROL_PATH, { schema: { body: FormBody({ code: Field(100) }) } }, async (request, reply) => {
    const form = request.body;
    const user = userOf(request);
    if (user.operator.totpSealed) throw new AppError('ALREADY_EXISTS');
    // The secret is the server's pending one: a `secret` field in the form is never read.
    try {
      const codes = await operators.confirmEnrolment(
        user.operator,
        { code: String(form.code ?? ''), sessionId: user.sessionId },
        user.actor,
      );
      // Shown once, in this answer only.
      return render(request, reply, 'recovery-codes.eta', { codes });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      // A wrong code: the same form, the same secret, and the error in the operator's language.
      const totp = await operators.startEnrolment(user.operator);
      reply.code(400);
      return render(request, reply, 'two-factor.eta', {
        totp,
        required: operators.mfaOwed(user.operator),
        codeError: true,
      });
    }
  });

  pages.post(
    '/backoffice/account/recovery-codes',
    { schema: { body: FormBody({ code: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      const codes = await operators.regenerateRecovery(user.operator, String(form.code ?? ''), user.actor);
      return render(request, reply, 'recovery-codes.eta', { codes });
    },
  );
}

/** The operator's settings: password, time zone, and ending their own sessions and tokens. */
function settingsPages(pages: App, { operators }: ConsoleServices) {
  pages.post(
    '/backoffice/account/password',
    {
      schema: {
        body: FormBody({ current_password: Field(), new_password: Field(), repeat_password: Field() }),
      },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      return act(reply, '/backoffice/account', async () => {
        if (form.new_password !== form.repeat_password)
          throw new AppError('VALIDATION_ERROR', [
            { field: 'repeat_password', problem: 'does not match the new password' },
          ]);
        await operators.changePassword(
          user.operator,
          String(form.current_password ?? ''),
          String(form.new_password ?? ''),
          user.sessionId,
          user.actor,
        );
        return 'passwordChanged';
      });
    },
  );

  pages.post(
    '/backoffice/account/time-zone',
    { schema: { body: FormBody({ tz: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const tz = TIME_ZONES.find((z) => z === form.tz);
      if (!tz)
        throw new AppError('VALIDATION_ERROR', [{ field: 'tz', problem: `one of ${TIME_ZONES.join(', ')}` }]);
      void reply.setCookie(TZ_COOKIE, tz, preferenceCookie(request));
      return reply.redirect(
        withFlash('/backoffice/account', { key: 'timeZoneSaved', values: { zone: tz } }),
        303,
      );
    },
  );

  for (const kind of ['sessions', 'tokens'] as const) {
    pages.post(
      `/backoffice/account/${kind}/:id/revoke`,
      { schema: { params: IdParams, body: FormBody({}) } },
      async (request, reply) => {
        const user = userOf(request);
        const { id } = request.params;
        return act(reply, '/backoffice/account', async () => {
          if (kind === 'sessions') await operators.revokeSession(user.operator.username, id, user.actor);
          else await operators.revokeTokens(user.operator.username, user.actor, str(id) ?? '-');
          return kind === 'sessions' ? 'sessionEnded' : 'tokenRevoked';
        });
      },
    );
  }
}

/**
 * The operator's own account (docs/decisions.md section 32): two-factor enrolment (QR, then recovery codes shown
 * once), new recovery codes, password change with the current password, and the operator's sessions
 * and API tokens, each revocable alone. Every role has it.
 */
export function accountPages(pages: App, services: ConsoleServices) {
  overviewPage(pages, services);
  twoFactorPages(pages, services);
  settingsPages(pages, services);
}

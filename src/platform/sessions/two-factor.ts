import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secrets.js';
import { newTotpSecret, totpEnrolment, totpStep } from '../../lib/totp.js';

/** A pending enrolment's secret: the one kept sealed (`sealed`), and whether it was just made. */
export interface PendingSecret {
  secret: string;
  sealed: string;
  fresh: boolean;
}

/**
 * The second factor of every person who signs in (operators, merchants' users; docs/architecture.md
 * "Session stack"): TOTP (RFC 6238 through `otpauth`, src/lib/totp.ts) with secrets made by the
 * server only and kept sealed with SECRET_KEY; an enrolment shows the same pending secret until it is
 * confirmed; a code is good once (its step must come after the last accepted one, RFC 6238 section
 * 5.2). Where the secrets and last steps are stored stays with the account's module.
 */
export function createTwoFactor(deps: { secretBox: SecretBox; clock: Clock }) {
  const { secretBox, clock } = deps;

  return {
    /** The pending secret sealed in `sealedPending`, or a fresh one (to be stored sealed by the caller). */
    pending(sealedPending: string | null | undefined): PendingSecret {
      if (sealedPending)
        return { secret: secretBox.open(sealedPending), sealed: sealedPending, fresh: false };
      const secret = newTotpSecret();
      return { secret, sealed: secretBox.seal(secret), fresh: true };
    },

    /** The enrolment page's `otpauth://` URI and QR (PNG data URL) for `label` (an email, `operator:<name>`). */
    enrolment: (secret: string, label: string) => totpEnrolment(secret, label),

    /** The step a current code of the sealed secret belongs to, or null (wrong, malformed, too old). */
    step(sealed: string, code: string): number | null {
      return totpStep(secretBox.open(sealed), code.trim(), clock.now());
    },

    /**
     * The step of a current code that was not used before (its step after `lastStep`), or null. The
     * caller records the step in the same transaction, so a replayed code is refused.
     */
    freshStep(sealed: string, code: string, lastStep: number | null | undefined): number | null {
      const step = totpStep(secretBox.open(sealed), code.trim(), clock.now());
      return step !== null && step > (lastStep ?? -1) ? step : null;
    },
  };
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;

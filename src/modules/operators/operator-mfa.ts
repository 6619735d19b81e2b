import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { operatorSessions, operators } from '../../db/tables/operators.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { createTwoFactor } from '../../platform/sessions/index.js';
import type { Role } from './permissions.js';

export type OperatorRow = typeof operators.$inferSelect;

/** Roles that cannot work without a second factor (docs/decisions.md section 32): they move money or accounts. */
export const MFA_ROLES: readonly Role[] = ['admin', 'payouts'];

/** How many recovery codes an enrolment gives (each good once). */
const RECOVERY_CODES = 10;

/** `abcde-fghij`: 50 bits from an alphabet without look-alikes, easy to read off paper. */
function recoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const normaliseRecovery = (code: string) => code.trim().toLowerCase().replace(/\s+/g, '');

/** What the second-factor steps share: the database and the TOTP rules both surfaces use. */
interface MfaContext {
  db: Database['db'];
  twoFactor: ReturnType<typeof createTwoFactor>;
}

/** New recovery codes for `operatorId` (replacing any left), returned once in clear. */
async function issueRecovery(tx: Executor, operatorId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
  await tx
    .update(operators)
    .set({ recoveryCodes: codes.map((c) => sha256Hex(normaliseRecovery(c))) })
    .where(eq(operators.id, operatorId));
  return codes;
}

/**
 * Checks a sign-in's second factor inside the login transaction: a TOTP code of a step after the
 * last accepted one (then recorded), or an unused recovery code (then spent). Returns how, or null.
 */
async function verifySecondFactor(
  ctx: MfaContext,
  tx: Executor,
  operator: OperatorRow,
  code: string,
): Promise<'totp' | 'recovery' | null> {
  if (!operator.totpSealed) return null;
  const locked = (await tx.select().from(operators).where(eq(operators.id, operator.id)).for('update'))[0];
  if (!locked?.totpSealed) return null;
  const step = ctx.twoFactor.freshStep(locked.totpSealed, code, locked.totpLastStep);
  if (step !== null) {
    await tx.update(operators).set({ totpLastStep: step }).where(eq(operators.id, operator.id));
    return 'totp';
  }
  const digest = sha256Hex(normaliseRecovery(code));
  if (code.trim().length >= 10 && locked.recoveryCodes.includes(digest)) {
    await tx
      .update(operators)
      .set({ recoveryCodes: locked.recoveryCodes.filter((d) => d !== digest) })
      .where(eq(operators.id, operator.id));
    return 'recovery';
  }
  return null;
}

/** Enrolment: the pending secret the server makes, then its confirmation with a current code. */
function enrolmentSteps({ db, twoFactor }: MfaContext) {
  return {
    /**
     * The enrolment page's secret and QR: made by the server and kept sealed as the operator's pending
     * secret, so a reload or a wrong code shows the same one (the one already scanned stays good).
     */
    async startEnrolment(operator: OperatorRow) {
      const label = `operator:${operator.username}`;
      const row = (await db.select().from(operators).where(eq(operators.id, operator.id)))[0];
      const pending = twoFactor.pending(row?.totpPendingSealed);
      if (pending.fresh)
        await db
          .update(operators)
          .set({ totpPendingSealed: pending.sealed })
          .where(eq(operators.id, operator.id));
      return twoFactor.enrolment(pending.secret, label);
    },

    /**
     * Confirms an enrolment with a current code of the pending secret the server made (never a secret
     * the client sends): the secret becomes the operator's, ten recovery codes are issued (returned
     * once), and the enrolling session becomes a full one. VALIDATION_ERROR naming `code` when the code
     * does not match or no secret is pending (the pending secret stays); ALREADY_EXISTS once enrolled.
     */
    async confirmEnrolment(
      operator: OperatorRow,
      input: { code: string; sessionId: string },
      actor: AdminActor,
    ): Promise<string[]> {
      return db.transaction(async (tx) => {
        const row = (await tx.select().from(operators).where(eq(operators.id, operator.id)).for('update'))[0];
        if (row?.totpSealed) throw new AppError('ALREADY_EXISTS');
        const step = row?.totpPendingSealed ? twoFactor.step(row.totpPendingSealed, input.code) : null;
        if (step === null || !row?.totpPendingSealed)
          throw invalidField('code', 'does not match: check the phone clock and type the current code');
        await tx
          .update(operators)
          .set({ totpSealed: row.totpPendingSealed, totpPendingSealed: null, totpLastStep: step })
          .where(eq(operators.id, operator.id));
        const codes = await issueRecovery(tx, operator.id);
        await tx
          .update(operatorSessions)
          .set({ scope: 'full' })
          .where(eq(operatorSessions.id, input.sessionId));
        await writeAudit(tx, actor, {
          action: 'operator.totp_enrol',
          targetType: 'operator',
          targetId: operator.username,
        });
        return codes;
      });
    },
  };
}

/** After enrolment: fresh recovery codes by the operator, a reset by an admin. */
function recoverySteps(ctx: MfaContext) {
  const { db } = ctx;
  return {
    /** New recovery codes (the old ones stop), after a current TOTP code; returned once. */
    async regenerateRecovery(operator: OperatorRow, code: string, actor: AdminActor): Promise<string[]> {
      return db.transaction(async (tx) => {
        const how = await verifySecondFactor(ctx, tx, operator, code);
        if (how !== 'totp') throw invalidField('code', 'a current code from the authenticator app is needed');
        const codes = await issueRecovery(tx, operator.id);
        await writeAudit(tx, actor, {
          action: 'operator.recovery_codes',
          targetType: 'operator',
          targetId: operator.username,
        });
        return codes;
      });
    },

    /**
     * An admin resets an operator's second factor (a lost phone): secret and recovery codes removed,
     * every session ended; a money-moving role must enrol again at the next sign-in. Audited.
     */
    async resetMfa(username: string, actor: AdminActor): Promise<void> {
      await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        await tx
          .update(operators)
          .set({ totpSealed: null, totpPendingSealed: null, totpLastStep: null, recoveryCodes: [] })
          .where(eq(operators.id, op.id));
        await tx.delete(operatorSessions).where(eq(operatorSessions.operatorId, op.id));
        await writeAudit(tx, actor, {
          action: 'operator.totp_reset',
          targetType: 'operator',
          targetId: username,
        });
      });
    },
  };
}

/**
 * Operators' second factor (docs/decisions.md section 32): TOTP (otpauth, secret sealed with SECRET_KEY, each code
 * good once) and recovery codes (shown once, kept as SHA-256, each good once).
 */
export function createOperatorMfa(deps: { database: Database; clock: Clock; secretBox: SecretBox }) {
  // The TOTP rules both surfaces share (docs/architecture.md "Session stack"); the rows stay ours.
  const ctx: MfaContext = { db: deps.database.db, twoFactor: createTwoFactor(deps) };
  return {
    /** Whether `operator` must enrol before working (a money-moving role without TOTP). */
    mfaOwed: (operator: OperatorRow) => MFA_ROLES.includes(operator.role) && operator.totpSealed === null,
    ...enrolmentSteps(ctx),
    /** See the module-level `verifySecondFactor`: TOTP or a recovery code, inside the login transaction. */
    verifySecondFactor: (tx: Executor, operator: OperatorRow, code: string) =>
      verifySecondFactor(ctx, tx, operator, code),
    ...recoverySteps(ctx),
  };
}

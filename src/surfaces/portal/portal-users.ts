import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { randomToken, type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { createTwoFactor } from '../../platform/sessions/index.js';
import {
  deleteSession,
  insertInvite,
  insertSession,
  insertUser,
  liveSession,
  lockLiveInvite,
  type MerchantUserRow,
  markInviteUsed,
  type PortalRole,
  setInvitePendingTotp,
  spendTotpStep,
  touchLogin,
  userByEmail,
  usersOf,
} from './portal-repository.js';

export const PORTAL_ROLES = ['owner', 'developer', 'accountant'] as const;
const INVITE_TTL_MS = 72 * 3600_000;
const SESSION_TTL_MS = 12 * 3600_000;

/** A signed-in portal user, as pages see it. */
export interface PortalUser {
  id: string;
  merchantId: string;
  email: string;
  role: PortalRole;
  csrf: string;
}

function checkEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!/^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,}$/.test(email)) throw invalidField('email', 'is not an email');
  return email;
}

function checkPassword(password: string): void {
  if (password.length < 12 || password.length > 200)
    throw invalidField('password', 'must be 12 to 200 characters');
}

/** What the people steps share: the database, the clock and the TOTP rules the console shares. */
interface UsersContext {
  db: Database['db'];
  clock: Clock;
  twoFactor: ReturnType<typeof createTwoFactor>;
  now: () => Date;
}

/** Invitations: a one-time link made, and what it is for. */
function invitationSteps({ db, clock, now }: UsersContext) {
  return {
    /**
     * A one-time invitation for `email` with `role` to `merchantId`: the code (for the link, shown
     * once) and its end. ALREADY_EXISTS when the email has an account; VALIDATION_ERROR for a bad one.
     */
    async invite(
      merchantId: string,
      input: { email: string; role: string },
      by: { name: string; ip: string },
    ) {
      const email = checkEmail(input.email);
      const role = PORTAL_ROLES.find((r) => r === input.role);
      if (!role) throw invalidField('role', `one of ${PORTAL_ROLES.join(', ')}`);
      if (await userByEmail(db, email)) throw new AppError('ALREADY_EXISTS');
      const code = randomToken(24);
      const expiresAt = new Date(clock.now() + INVITE_TTL_MS);
      await db.transaction(async (tx) => {
        await insertInvite(tx, {
          codeDigest: sha256Hex(code),
          merchantId,
          email,
          role,
          invitedBy: by.name,
          expiresAt,
        });
        await writeAudit(tx, by, {
          action: 'portal.invite',
          targetType: 'merchant',
          targetId: merchantId,
          after: { email, role },
        });
      });
      return { code, email, role, expires_at: expiresAt.toISOString() };
    },

    /** What an invitation is for, or NOT_FOUND (unknown, used, expired). */
    async inviteInfo(code: string) {
      const row = await lockLiveInvite(db, sha256Hex(code), now());
      if (!row) throw new AppError('NOT_FOUND');
      return { email: row.email, role: row.role, merchantId: row.merchantId };
    },
  };
}

/** The account set up from an invitation: its TOTP secret, then password and code. */
function setUpSteps({ db, twoFactor, now }: UsersContext) {
  return {
    /**
     * The invitation page's TOTP secret and QR (otpauth:// URI as a PNG data URL): made by the server
     * once and kept sealed on the invitation, so a reload or a wrong code shows the same secret (the
     * one already scanned stays good). NOT_FOUND for a used or expired link.
     */
    async inviteTotp(code: string) {
      const digest = sha256Hex(code);
      const { secret, email } = await db.transaction(async (tx) => {
        const invite = await lockLiveInvite(tx, digest, now());
        if (!invite) throw new AppError('NOT_FOUND');
        const pending = twoFactor.pending(invite.totpPendingSealed);
        if (pending.fresh) await setInvitePendingTotp(tx, digest, pending.sealed);
        return { secret: pending.secret, email: invite.email };
      });
      return twoFactor.enrolment(secret, email);
    },

    /**
     * Sets the account up from an invitation: password, and TOTP (a current `totpCode` of the secret
     * the invitation page showed, kept by the server: a client never chooses it; required for an
     * owner). The code's step is recorded, so the same code cannot sign in after. NOT_FOUND for a used
     * or expired link; VALIDATION_ERROR naming `password` or `totp_code` (the pending secret stays).
     */
    async accept(code: string, input: { password: string; totpCode?: string }, ip: string) {
      checkPassword(input.password);
      const digest = sha256Hex(code);
      const passwordHash = await hashPassword(input.password);
      return db.transaction(async (tx) => {
        const invite = await lockLiveInvite(tx, digest, now());
        if (!invite) throw new AppError('NOT_FOUND');
        const pending = invite.totpPendingSealed;
        const withTotp = Boolean(input.totpCode);
        if (invite.role === 'owner' && !withTotp)
          throw invalidField('totp_code', 'two-factor is mandatory for an owner');
        const step = withTotp && pending ? twoFactor.step(pending, String(input.totpCode)) : null;
        if (withTotp && step === null)
          throw invalidField('totp_code', 'does not match: check the phone’s clock and try the current code');
        if (await userByEmail(tx, invite.email)) throw new AppError('ALREADY_EXISTS');
        const user = await insertUser(tx, {
          id: randomUUID(),
          merchantId: invite.merchantId,
          email: invite.email,
          role: invite.role,
          passwordHash,
          totpSealed: withTotp ? invite.totpPendingSealed : null,
          totpLastStep: step,
        });
        await markInviteUsed(tx, digest, now());
        await writeAudit(
          tx,
          { name: `portal:${user.email}`, ip },
          {
            action: 'portal.account_created',
            targetType: 'merchant',
            targetId: user.merchantId,
            after: { role: user.role, totp: withTotp },
          },
        );
        return { email: user.email };
      });
    },
  };
}

/** Sign-in with password and TOTP, opening a 12-hour session. */
function signInSteps({ db, clock, twoFactor, now }: UsersContext) {
  return {
    /**
     * A password (+ TOTP when the account has it) login; the session token and CSRF token, or
     * undefined (every failure audited with the reason).
     */
    async login(input: { email: string; password: string; code: string }, ip: string) {
      const email = input.email.trim().toLowerCase().slice(0, 254);
      const user = await userByEmail(db, email);
      const ok = await verifyPassword(user?.passwordHash, input.password);
      const step = user?.totpSealed ? twoFactor.step(user.totpSealed, input.code) : 0;
      // A code is good once (RFC 6238 section 5.2): its step must come after the last accepted one.
      const totpOk =
        !user?.totpSealed ||
        (step !== null && ok && user.enabled && (await spendTotpStep(db, user.id, step)));
      if (!user || !ok || !user.enabled || !totpOk) {
        const reason = !user
          ? 'unknown_user'
          : !ok
            ? 'wrong_password'
            : !user.enabled
              ? 'disabled'
              : step === null
                ? 'wrong_code'
                : 'replayed_code';
        await writeAudit(
          db,
          { name: 'anonymous', ip },
          { action: 'portal.login_failed', targetType: 'merchant_user', targetId: email, after: { reason } },
        );
        return undefined;
      }
      const token = randomToken(32);
      const csrf = randomToken(16);
      await db.transaction(async (tx) => {
        await insertSession(tx, {
          tokenDigest: sha256Hex(token),
          userId: user.id,
          csrf,
          expiresAt: new Date(clock.now() + SESSION_TTL_MS),
        });
        await touchLogin(tx, user.id, now());
        await writeAudit(
          tx,
          { name: `portal:${user.email}`, ip },
          {
            action: 'portal.login',
            targetType: 'merchant',
            targetId: user.merchantId,
          },
        );
      });
      return { token, maxAgeSeconds: SESSION_TTL_MS / 1000 };
    },
  };
}

/** Live sessions and the merchant's accounts. */
function sessionSteps({ db, now }: UsersContext) {
  return {
    /** The signed-in user of a session token, or undefined (unknown, expired, account disabled). */
    async session(token: string): Promise<PortalUser | undefined> {
      const found = await liveSession(db, sha256Hex(token), now());
      if (!found?.user.enabled) return undefined;
      const u: MerchantUserRow = found.user;
      return { id: u.id, merchantId: u.merchantId, email: u.email, role: u.role, csrf: found.session.csrf };
    },

    logout: (token: string) => deleteSession(db, sha256Hex(token)),

    /** The merchant's accounts (the owner's users page). */
    async list(merchantId: string) {
      return (await usersOf(db, merchantId)).map((u) => ({
        email: u.email,
        role: u.role,
        totp: u.totpSealed !== null,
        enabled: u.enabled,
        last_login_at: u.lastLoginAt?.toISOString() ?? null,
      }));
    },
  };
}

/**
 * The portal's people (docs/decisions.md section 28): invitations (an operator's or the owner's one-time
 * link, 72 h), the account set from it (argon2id password; TOTP, mandatory for `owner`), password
 * + TOTP logins that always spend one argon2 verification, 12-hour sessions with a CSRF token. Every
 * step is audited as `portal:<email>`.
 */
export function createPortalUsers(deps: { database: Database; clock: Clock; secretBox: SecretBox }) {
  const { clock } = deps;
  // The TOTP rules the console shares (docs/architecture.md "Session stack"); the rows stay ours.
  const ctx: UsersContext = {
    db: deps.database.db,
    clock,
    twoFactor: createTwoFactor(deps),
    now: () => new Date(clock.now()),
  };
  return { ...invitationSteps(ctx), ...setUpSteps(ctx), ...signInSteps(ctx), ...sessionSteps(ctx) };
}

export type PortalUsers = ReturnType<typeof createPortalUsers>;

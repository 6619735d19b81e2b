import type { Database, Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { randomToken, type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { createTwoFactor, type TwoFactor } from '../../platform/sessions/index.js';
import {
  deleteSession,
  deleteSessionsOfUser,
  insertInvite,
  insertSession,
  insertUser,
  liveSession,
  lockLiveInvite,
  markInviteUsed,
  setInvitePendingTotp,
  setUserEnabled,
  spendTotpStep,
  touchLogin,
  userByLogin,
  usersOfHolder,
} from './holder-users-repository.js';
import { findHolder } from './holders-repository.js';

const INVITE_TTL_MS = 72 * 3600_000;
const SESSION_TTL_MS = 12 * 3600_000;

/** A signed-in holder, as their page sees it. */
export interface HolderUser {
  id: string;
  holderId: string;
  login: string;
  csrf: string;
}

/** A login: 3 to 64 of `a-z 0-9 . _ @ + -`, lower-cased. VALIDATION_ERROR naming `login` otherwise. */
function checkLogin(value: string): string {
  const login = value.trim().toLowerCase();
  if (!/^[a-z0-9._@+-]{3,64}$/.test(login))
    throw invalidField('login', 'must be 3 to 64 of a-z 0-9 . _ @ + -');
  return login;
}

function checkPassword(password: string): void {
  if (password.length < 12 || password.length > 200)
    throw invalidField('password', 'must be 12 to 200 characters');
}

interface UsersContext {
  db: Database['db'];
  /** The service's public address: invitation links are `<publicBaseUrl>/holder/invite/<code>`. */
  publicBaseUrl: string;
  clock: Clock;
  twoFactor: TwoFactor;
  now: () => Date;
}

async function liveInvite(ex: Executor, code: string, now: Date) {
  const invite = await lockLiveInvite(ex, sha256Hex(code), now);
  if (!invite) throw new AppError('NOT_FOUND');
  return invite;
}

/** The operator's invitation, and the account set up from it (password and TOTP, both mandatory). */
function invitationSteps({ db, clock, twoFactor, now, publicBaseUrl }: UsersContext) {
  return {
    /**
     * A one-time invitation (72 h) of holder `holderId` to their page under `login`: the link (its
     * code is kept only as a digest, so it is shown once) and its end. NOT_FOUND for an unknown holder; ALREADY_EXISTS when the login
     * is taken; VALIDATION_ERROR naming `login`. Audited `holder.invite`.
     */
    async invite(holderId: string, input: { login: string }, by: AdminActor) {
      const login = checkLogin(input.login);
      const holder = /^[0-9a-f-]{36}$/i.test(holderId) ? await findHolder(db, holderId) : undefined;
      if (!holder) throw new AppError('NOT_FOUND');
      if (await userByLogin(db, login)) throw new AppError('ALREADY_EXISTS');
      const code = randomToken(24);
      const expiresAt = new Date(clock.now() + INVITE_TTL_MS);
      await db.transaction(async (tx) => {
        await insertInvite(tx, {
          codeDigest: sha256Hex(code),
          holderId,
          login,
          invitedBy: by.name,
          expiresAt,
        });
        await writeAudit(tx, by, {
          action: 'holder.invite',
          targetType: 'holder',
          targetId: holderId,
          after: { login },
        });
      });
      return {
        login,
        invite_url: `${publicBaseUrl}/holder/invite/${code}`,
        expires_at: expiresAt.toISOString(),
      };
    },

    /**
     * What the invitation page shows: the login and the TOTP secret with its QR and `otpauth://` URI,
     * made once and kept sealed on the invitation. NOT_FOUND for a used or expired link.
     */
    async invitePage(code: string) {
      const { secret, login } = await db.transaction(async (tx) => {
        const invite = await liveInvite(tx, code, now());
        const pending = twoFactor.pending(invite.totpPendingSealed);
        if (pending.fresh) await setInvitePendingTotp(tx, invite.codeDigest, pending.sealed);
        return { secret: pending.secret, login: invite.login };
      });
      return { login, totp: await twoFactor.enrolment(secret, `holder:${login}`) };
    },

    /**
     * Sets the account up: a password and a current code of the secret the page showed (mandatory:
     * no account without its second factor). NOT_FOUND for a used or expired link; VALIDATION_ERROR
     * naming `password` or `totp_code`; ALREADY_EXISTS when the login was taken meanwhile.
     */
    async accept(code: string, input: { password: string; totpCode: string }, ip: string) {
      checkPassword(input.password);
      const passwordHash = await hashPassword(input.password);
      return db.transaction(async (tx) => {
        const invite = await liveInvite(tx, code, now());
        const pending = invite.totpPendingSealed;
        const step = pending ? twoFactor.step(pending, input.totpCode) : null;
        if (!pending || step === null)
          throw invalidField('totp_code', 'does not match: check the phone’s clock and try the current code');
        if (await userByLogin(tx, invite.login)) throw new AppError('ALREADY_EXISTS');
        const user = await insertUser(tx, {
          holderId: invite.holderId,
          login: invite.login,
          passwordHash,
          totpSealed: pending,
          totpLastStep: step,
        });
        await markInviteUsed(tx, invite.codeDigest, now());
        await writeAudit(
          tx,
          { name: `holder:${user.login}`, ip },
          { action: 'holder.account_created', targetType: 'holder', targetId: user.holderId },
        );
        return { login: user.login };
      });
    },
  };
}

/** Why a sign-in failed, for the audit. */
function failure(
  user: { enabled: boolean } | undefined,
  ok: boolean,
  step: number | null,
  holderActive: boolean,
): string {
  if (!user) return 'unknown_user';
  if (!ok) return 'wrong_password';
  if (!user.enabled) return 'disabled';
  if (!holderActive) return 'holder_suspended';
  return step === null ? 'wrong_code' : 'replayed_code';
}

/** Sign-in (password and TOTP, always), sessions and sign-out. */
function sessionSteps({ db, clock, twoFactor, now }: UsersContext) {
  return {
    /**
     * A password + TOTP sign-in (one argon2 verification whatever the login): the session token
     * and its life, or undefined (every failure audited with its reason).
     */
    async login(input: { login: string; password: string; code: string }, ip: string) {
      const login = input.login.trim().toLowerCase().slice(0, 64);
      const user = await userByLogin(db, login);
      const ok = await verifyPassword(user?.passwordHash, input.password);
      const step = user ? twoFactor.step(user.totpSealed, input.code) : null;
      // A suspended holder signs in no more (docs/decisions.md "Payouts on the holder's page").
      const holderActive = !!user && (await findHolder(db, user.holderId))?.status === 'active';
      const good =
        !!user &&
        ok &&
        user.enabled &&
        holderActive &&
        step !== null &&
        (await spendTotpStep(db, user.id, step));
      if (!user || !good) {
        await writeAudit(
          db,
          { name: 'anonymous', ip },
          {
            action: 'holder.login_failed',
            targetType: 'holder_user',
            targetId: login,
            after: { reason: failure(user, ok, step, holderActive) },
          },
        );
        return undefined;
      }
      const token = randomToken(32);
      await db.transaction(async (tx) => {
        const expiresAt = new Date(clock.now() + SESSION_TTL_MS);
        await insertSession(tx, {
          tokenDigest: sha256Hex(token),
          userId: user.id,
          csrf: randomToken(16),
          expiresAt,
        });
        await touchLogin(tx, user.id, now());
        await writeAudit(
          tx,
          { name: `holder:${user.login}`, ip },
          {
            action: 'holder.login',
            targetType: 'holder',
            targetId: user.holderId,
          },
        );
      });
      return { token, maxAgeSeconds: SESSION_TTL_MS / 1000 };
    },

    /**
     * The signed-in holder of a session token, or undefined (unknown, expired, account disabled, or
     * the holder suspended: their open sessions stop working at once).
     */
    async session(token: string): Promise<HolderUser | undefined> {
      const found = await liveSession(db, sha256Hex(token), now());
      if (!found?.user.enabled) return undefined;
      const holder = await findHolder(db, found.user.holderId);
      if (!holder || holder.status !== 'active') return undefined;
      return { id: found.user.id, holderId: holder.id, login: found.user.login, csrf: found.session.csrf };
    },

    logout: (token: string) => deleteSession(db, sha256Hex(token)),
  };
}

/** The operators' control of a holder's page accounts (docs/decisions.md "Payouts on the holder's page"). */
function accountSteps({ db, now }: UsersContext) {
  return {
    /** Holder `holderId`'s page accounts: login, enabled, created, last sign-in, live sessions. NOT_FOUND for an unknown holder. */
    async accounts(holderId: string) {
      const holder = isHolderId(holderId) ? await findHolder(db, holderId) : undefined;
      if (!holder) throw new AppError('NOT_FOUND');
      return (await usersOfHolder(db, holderId, now())).map(accountView);
    },

    /**
     * An operator turns account `userId` of holder `holderId` off (every session of it ends in the
     * same transaction) or on again. NOT_FOUND when the account is not that holder's. Audited
     * `holder.account_disabled` / `holder.account_enabled`.
     */
    async setAccountEnabled(holderId: string, userId: string, enabled: boolean, by: AdminActor) {
      if (!isHolderId(holderId) || !isHolderId(userId)) throw new AppError('NOT_FOUND');
      await db.transaction(async (tx) => {
        if (!(await setUserEnabled(tx, holderId, userId, enabled))) throw new AppError('NOT_FOUND');
        if (!enabled) await deleteSessionsOfUser(tx, userId);
        await writeAudit(tx, by, {
          action: enabled ? 'holder.account_enabled' : 'holder.account_disabled',
          targetType: 'holder_user',
          targetId: userId,
          after: { holder_id: holderId, enabled },
        });
      });
      const found = (await usersOfHolder(db, holderId, now())).find((u) => u.id === userId);
      if (!found) throw new AppError('NOT_FOUND');
      return accountView(found);
    },
  };
}

const isHolderId = (id: string) => /^[0-9a-f-]{36}$/i.test(id);

function accountView(u: Awaited<ReturnType<typeof usersOfHolder>>[number]) {
  return {
    id: u.id,
    login: u.login,
    enabled: u.enabled,
    created_at: u.createdAt.toISOString(),
    last_login_at: u.lastLoginAt?.toISOString() ?? null,
    open_sessions: Number(u.sessions),
  };
}

/**
 * Holders' accounts on their own page (docs/decisions.md "The holder's own page"): an operator's
 * one-time invitation (72 h), the account set from it with an argon2id password and a TOTP secret
 * (both mandatory), password + TOTP sign-ins, 12-hour sessions with a CSRF token. The TOTP rules
 * are the shared ones (src/platform/sessions); the rows are this module's. Audited as
 * `holder:<login>`.
 */
export function createHolderUsers(deps: {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  publicBaseUrl: string;
}) {
  const ctx: UsersContext = {
    db: deps.database.db,
    publicBaseUrl: deps.publicBaseUrl,
    clock: deps.clock,
    twoFactor: createTwoFactor(deps),
    now: () => new Date(deps.clock.now()),
  };
  return { ...invitationSteps(ctx), ...sessionSteps(ctx), ...accountSteps(ctx) };
}

export type HolderUsers = ReturnType<typeof createHolderUsers>;

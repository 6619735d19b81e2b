import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { countRequisites, resumeRequisites } from '../../modules/requisites/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { assignDeviceHolder } from './device-holder.js';
import { paidPayinsOn } from './device-order-reads.js';
import {
  type DeviceSecrets,
  newDeviceSecrets,
  newPairingCode,
  PAIRING_TTL_SECONDS,
  sealWithCode,
} from './device-secrets.js';
import { deviceSetup } from './device-setup.js';
import { deviceState, deviceWarnings } from './device-state.js';
import {
  bindingsOf,
  type DeviceRow,
  devicesOfRequisites,
  findDevice,
  insertDevice,
  listDevices,
  ordersPaidByMessages,
  setBindings,
  updateDevice,
} from './devices-repository.js';

/** The longest grace period of a rotation: the old secrets keep working this long at most, in seconds. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;

/** What device management is made of; `publicBaseUrl` goes into every app's setup and the pairing link. */
export interface DeviceAdminDeps {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  publicBaseUrl: string;
}

/** Checks the requisites exist and no other device holds them; throws VALIDATION_ERROR or REQUISITE_ALREADY_BOUND. */
async function checkBindable(ex: Executor, deviceId: string | undefined, ids: string[]) {
  if (ids.some((id) => !isUuid(id))) throw invalidField('requisite_ids', 'unknown requisite');
  if ((await countRequisites(ex, ids)) !== ids.length)
    throw invalidField('requisite_ids', 'unknown requisite');
  const taken = (await devicesOfRequisites(ex, ids)).filter((b) => b.deviceId !== deviceId);
  if (taken.length > 0) {
    throw new AppError('REQUISITE_ALREADY_BOUND', [
      {
        field: 'requisite_ids',
        problem: `bound to device ${taken[0]?.deviceId}: unbind or revoke it first`,
      },
    ]);
  }
}

/** The sealed columns, the pairing link and the answer shown once. */
function issue(deps: DeviceAdminDeps, deviceId: string, secrets: DeviceSecrets, now: Date) {
  const { secretBox, publicBaseUrl } = deps;
  const setup = deviceSetup(publicBaseUrl, deviceId, secrets);
  const pairing = newPairingCode();
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_SECONDS * 1000);
  return {
    columns: {
      tokenDigest: sha256Hex(secrets.token),
      signingKeySealed: secretBox.seal(secrets.signingKey),
      nativeSecretSealed: secretBox.seal(secrets.nativeSecret),
      pairingDigest: pairing.digest,
      pairingSealed: sealWithCode(pairing.code, JSON.stringify(setup)),
      pairingExpiresAt: expiresAt,
      pairingClaimedAt: null,
    },
    answer: {
      ...setup,
      pairing: {
        url: `${publicBaseUrl.replace(/\/+$/, '')}/devices/pair/${pairing.code}`,
        expires_at: expiresAt.toISOString(),
      },
    },
  };
}

/** An id that is not a UUID names no device. */
function requireId(id: string) {
  if (!isUuid(id)) throw new AppError('NOT_FOUND');
}

/** Secrets issued: a new device with its pairing link, or new secrets for one (with a grace period). */
function issuingSteps(deps: DeviceAdminDeps) {
  const { database, clock } = deps;
  const db = database.db;
  return {
    /** Creates a device bound to the requisites; the answer (every app's secrets, the pairing link) is shown once. */
    async create(input: { name: string; requisite_ids: string[] }, actor: AdminActor) {
      const ids = [...new Set(input.requisite_ids)];
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        await checkBindable(tx, undefined, ids);
        const id = randomUUID();
        const { columns, answer } = issue(deps, id, newDeviceSecrets(), now);
        const row = await insertDevice(tx, { id, name: input.name.trim(), requisiteIds: [], ...columns });
        await setBindings(tx, id, ids, now);
        await writeAudit(tx, actor, {
          action: 'device.create',
          targetType: 'device',
          targetId: id,
          after: { name: row.name, requisite_ids: ids },
        });
        return { id, name: row.name, requisite_ids: ids, ...answer };
      });
    },

    /**
     * New secrets for a device; the old ones keep working for `grace_seconds` (0: at once they
     * stop), so the phone can be switched without losing a message. Audited.
     */
    async rotate(id: string, graceSeconds: number, actor: AdminActor) {
      requireId(id);
      if (graceSeconds < 0 || graceSeconds > MAX_ROTATION_GRACE_SECONDS)
        throw invalidField('grace_seconds', `0 to ${MAX_ROTATION_GRACE_SECONDS}`);
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const device = await findDevice(tx, id, true);
        if (!device) throw new AppError('NOT_FOUND');
        if (device.revokedAt) throw new AppError('ORDER_STATE_CONFLICT');
        const { columns, answer } = issue(deps, id, newDeviceSecrets(), now);
        const validUntil = new Date(now.getTime() + graceSeconds * 1000).toISOString();
        await updateDevice(tx, id, {
          ...columns,
          previousSecrets:
            graceSeconds > 0
              ? {
                  tokenDigest: device.tokenDigest,
                  signingKeySealed: device.signingKeySealed,
                  nativeSecretSealed: device.nativeSecretSealed,
                  validUntil,
                }
              : null,
        });
        await writeAudit(tx, actor, {
          action: 'device.rotate',
          targetType: 'device',
          targetId: id,
          after: {
            grace_seconds: graceSeconds,
            old_secrets_valid_until: graceSeconds > 0 ? validUntil : null,
          },
        });
        const bound = (await bindingsOf(tx, [id])).get(id) ?? [];
        return { id, name: device.name, requisite_ids: bound, ...answer };
      });
    },
  };
}

/** What a device holds and how it stands: revocation, its requisites, the list with warnings. */
function holdingSteps(deps: DeviceAdminDeps) {
  const { database, clock } = deps;
  const db = database.db;
  return {
    /** Revokes a device at once: every secret stops working, its requisites are unbound. Audited. */
    async revoke(id: string, actor: AdminActor) {
      requireId(id);
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const device = await findDevice(tx, id, true);
        if (!device) throw new AppError('NOT_FOUND');
        const bound = (await bindingsOf(tx, [id])).get(id) ?? [];
        await updateDevice(tx, id, {
          revokedAt: device.revokedAt ?? now,
          enabled: false,
          previousSecrets: null,
          pairingDigest: null,
          pairingSealed: null,
          pairingExpiresAt: null,
        });
        await setBindings(tx, id, [], now);
        // Requisites without a live device are not subject to liveness (docs/decisions.md section 24).
        await resumeRequisites(tx, bound, ['stale', 'liveness'], now);
        await writeAudit(tx, actor, {
          action: 'device.revoke',
          targetType: 'device',
          targetId: id,
          before: { requisite_ids: bound },
        });
        return { id, revoked_at: (device.revokedAt ?? now).toISOString(), unbound_requisite_ids: bound };
      });
    },

    /** Replaces the requisites a device confirms (one device per requisite). Audited. */
    async bind(id: string, requisiteIds: string[], actor: AdminActor) {
      requireId(id);
      const ids = [...new Set(requisiteIds)];
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const device = await findDevice(tx, id, true);
        if (!device) throw new AppError('NOT_FOUND');
        if (device.revokedAt) throw new AppError('ORDER_STATE_CONFLICT');
        await checkBindable(tx, id, ids);
        const before = (await bindingsOf(tx, [id])).get(id) ?? [];
        await setBindings(tx, id, ids, now);
        const dropped = before.filter((r) => !ids.includes(r));
        await resumeRequisites(tx, dropped, ['stale', 'liveness'], now);
        await writeAudit(tx, actor, {
          action: 'device.bind',
          targetType: 'device',
          targetId: id,
          before: { requisite_ids: before },
          after: { requisite_ids: ids },
        });
        return { id, requisite_ids: ids };
      });
    },

    /** Gives a device to a holder, or to none: `assignDeviceHolder`. */
    assignHolder: (id: string, holderId: string | null, move: boolean, actor: AdminActor) =>
      assignDeviceHolder(database, { id, holderId, move, actor }),

    /** Every device with its state, health, requisites and warnings, oldest first. */
    async list() {
      const now = new Date(clock.now());
      const devices = await listDevices(db);
      const bindings = await bindingsOf(db);
      const allBound = [...bindings.values()].flat();
      const paid = await paidPayinsOn(db, allBound, new Date(now.getTime() - 24 * 3600_000));
      const byMessage = await ordersPaidByMessages(
        db,
        paid.map((p) => p.id),
      );
      return devices.map((d) => deviceView(d, bindings.get(d.id) ?? [], now, paid, byMessage));
    },
  };
}

/**
 * Operators' management of requisite holders' phones (docs/decisions.md section 24): pairing (the secrets
 * shown once, and a one-time link valid 15 minutes, claimed on its page: device-pairing.ts), bindings (one device per requisite),
 * rotation with a grace period, revocation, and the list with state, health and warnings.
 */
export function createDeviceAdmin(deps: DeviceAdminDeps) {
  return { ...issuingSteps(deps), ...holdingSteps(deps) };
}

function deviceView(
  d: DeviceRow,
  bound: string[],
  now: Date,
  paid: Array<{ id: string; requisiteId: string | null }>,
  byMessage: Set<string>,
) {
  const state = deviceState(d, now);
  const unbound = d.requisiteIds.filter((r) => !bound.includes(r));
  const paidWithoutMessage = d.lastHeartbeatAt
    ? paid.filter((p) => p.requisiteId && bound.includes(p.requisiteId) && !byMessage.has(p.id)).length
    : 0;
  return {
    id: d.id,
    name: d.name,
    holder_id: d.holderId,
    state,
    last_seen_at: d.lastSeenAt?.toISOString() ?? null,
    last_heartbeat_at: d.lastHeartbeatAt?.toISOString() ?? null,
    health: d.health ?? null,
    requisite_ids: bound,
    unbound_legacy_requisite_ids: d.revokedAt ? [] : unbound,
    warnings: deviceWarnings({
      health: d.health,
      state,
      paidWithoutMessage,
      unboundLegacy: d.revokedAt ? 0 : unbound.length,
    }),
    rotation_grace_until: d.previousSecrets?.validUntil ?? null,
    pairing_claimed_at: d.pairingClaimedAt?.toISOString() ?? null,
    revoked_at: d.revokedAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}

export type DeviceAdmin = ReturnType<typeof createDeviceAdmin>;

import type { Database, Executor } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { creditShowsEnding } from '../../modules/bank-messages/index.js';
import {
  findRequisites,
  learnMask,
  maskAddress,
  type RequisiteRow,
  requisiteMasks,
} from '../../modules/requisites/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { openWithCode, pairingDigest } from './device-secrets.js';
import { type DeviceSetup, deviceUrls, SMS_GATEWAY_EVENTS } from './device-setup.js';
import { bindingsOf, findPairing, markPairingClaimed } from './devices-repository.js';
import { SMS_FORWARDER_TEMPLATE } from './sms-forwarder-body.js';

/** A pairing code as links carry it (device-secrets.ts `newPairingCode`: 24 bytes, base64url). */
const CODE = /^[A-Za-z0-9_-]{16,64}$/;
/** An ending a holder types: the four digits bank texts show (bank-rule.ts `MASK_DIGITS`). */
const ENDING = /^\d{4}$/;

/** One requisite the device confirms, as its pairing page shows it (no full card number). */
export interface PairingRequisite {
  id: string;
  kind: RequisiteRow['kind'];
  bank: string;
  /** The address with all but its last four characters hidden. */
  address: string;
  /** Endings its bank's messages are matched against (the card's own, those operators added). */
  masks: string[];
  /** True when it has no ending and its bank's credit texts show one: the page asks for it. */
  asks_ending: boolean;
}

/** What an unclaimed pairing link shows before the claim: nothing secret. */
export interface PairingPreview {
  device_id: string;
  name: string;
  expires_at: string;
  requisites: PairingRequisite[];
  /** Every app's addresses and SmsForwarder's template; the secrets come with the claim. */
  apps: {
    sms_gateway: { url: string; events: string[] };
    sms_forwarder: { url: string; template: string };
    native: { url: string };
  };
}

/** Who claims a link, for the audit trail (no account: the link is the authority). */
export interface PairingClaimant {
  ip: string;
  userAgent: string;
}

type PairingRow = NonNullable<Awaited<ReturnType<typeof findPairing>>>;

/** Refuses a link that cannot be claimed now: NOT_FOUND, PAIRING_LINK_USED or PAIRING_LINK_EXPIRED. */
function openLink(row: PairingRow | undefined, now: Date): PairingRow & { expiresAt: Date } {
  if (!row || row.revokedAt || !row.expiresAt) throw new AppError('NOT_FOUND');
  if (row.claimedAt) throw new AppError('PAIRING_LINK_USED');
  if (row.expiresAt.getTime() <= now.getTime() || !row.sealed) throw new AppError('PAIRING_LINK_EXPIRED');
  return { ...row, expiresAt: row.expiresAt };
}

function requisiteView(r: RequisiteRow): PairingRequisite {
  const masks = requisiteMasks(r);
  return {
    id: r.id,
    kind: r.kind,
    bank: r.bank,
    address: maskAddress(r.address),
    masks,
    asks_ending: masks.length === 0 && creditShowsEnding(r.bankCode),
  };
}

async function requisitesOf(ex: Executor, deviceId: string): Promise<PairingRequisite[]> {
  const ids = (await bindingsOf(ex, [deviceId])).get(deviceId) ?? [];
  const rows = await findRequisites(ex, ids);
  return ids.flatMap((id) => rows.filter((r) => r.id === id)).map(requisiteView);
}

/**
 * The endings the holder typed, checked against what the page asked: `endings` maps a requisite id
 * to digits ('' is "not given"). Throws VALIDATION_ERROR naming `mask_<id>` for an ending that is
 * not four digits or for a requisite the page did not ask about.
 */
export function acceptedEndings(
  asked: readonly PairingRequisite[],
  endings: Readonly<Record<string, string>>,
): Array<{ id: string; mask: string }> {
  const out: Array<{ id: string; mask: string }> = [];
  for (const [id, raw] of Object.entries(endings)) {
    const mask = raw.trim();
    if (mask === '') continue;
    if (!asked.some((r) => r.id === id && r.asks_ending))
      throw invalidField(`mask_${id}`, 'this requisite needs no ending');
    if (!ENDING.test(mask)) throw invalidField(`mask_${id}`, 'four digits');
    out.push({ id, mask });
  }
  return out;
}

/**
 * The holder's side of pairing (docs/decisions.md "The pairing page"): `preview` reads a link
 * without spending it or revealing a secret (pages, previews, HEAD); `claim` spends it once,
 * records the endings the holder gave, and opens the setup sealed under the link's code.
 */
export function createDevicePairing(deps: { database: Database; clock: Clock; publicBaseUrl: string }) {
  const { database, clock, publicBaseUrl } = deps;
  const db = database.db;

  return {
    /** The device, its requisites and the apps' addresses; throws NOT_FOUND, PAIRING_LINK_USED, PAIRING_LINK_EXPIRED. */
    async preview(code: string): Promise<PairingPreview> {
      if (!CODE.test(code)) throw new AppError('NOT_FOUND');
      const row = openLink(await findPairing(db, pairingDigest(code)), new Date(clock.now()));
      const urls = deviceUrls(publicBaseUrl, row.id);
      return {
        device_id: row.id,
        name: row.name,
        expires_at: row.expiresAt.toISOString(),
        requisites: await requisitesOf(db, row.id),
        apps: {
          sms_gateway: { url: urls.smsGateway, events: [...SMS_GATEWAY_EVENTS] },
          sms_forwarder: { url: urls.smsForwarder, template: SMS_FORWARDER_TEMPLATE },
          native: { url: urls.native },
        },
      };
    },

    /**
     * Claims the link: in one transaction (the device's row locked) the endings are recorded on
     * requisites that had none (audited `requisite.mask_learned`), the link is marked claimed
     * (audited `device.paired`) and its setup opened. A second claim: PAIRING_LINK_USED.
     */
    async claim(code: string, endings: Readonly<Record<string, string>>, who: PairingClaimant) {
      if (!CODE.test(code)) throw new AppError('NOT_FOUND');
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const row = openLink(await findPairing(tx, pairingDigest(code), true), now);
        const requisites = await requisitesOf(tx, row.id);
        const accepted = acceptedEndings(requisites, endings);
        const actor = { name: `holder:pairing:${row.id}`, ip: who.ip };
        for (const { id, mask } of accepted) {
          if (!(await learnMask(tx, id, mask, now))) continue;
          await writeAudit(tx, actor, {
            action: 'requisite.mask_learned',
            targetType: 'requisite',
            targetId: id,
            after: { masks: [mask], via: 'pairing' },
          });
        }
        await markPairingClaimed(tx, row.id, now);
        await writeAudit(tx, actor, {
          action: 'device.paired',
          targetType: 'device',
          targetId: row.id,
          after: { user_agent: who.userAgent.slice(0, 200), masks_given: accepted.length },
        });
        const setup = JSON.parse(openWithCode(code, row.sealed ?? '')) as DeviceSetup;
        return { name: row.name, setup, endings: accepted };
      });
    },
  };
}

export type DevicePairing = ReturnType<typeof createDevicePairing>;

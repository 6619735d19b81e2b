/**
 * De-duplication of device events (issue 19 section 3), the two levels that are rules; the third
 * (a credit confirms at most one order, an order is paid by at most one credit) is unique
 * constraints in the database.
 * - Transport: an app's retries and duplicates carry another event id and a message id that is a
 *   32-bit hash of the content, so the key is our own hash of device, channel, source, receive time
 *   (to the second) and the normalised text.
 * - Channel: the SMS and the push notification of one transfer are one credit; two messages of the
 *   same channel never are (they may be two real payments of the same amount).
 */
import { createHash } from 'node:crypto';
import { money } from '../../lib/money.js';
import {
  type MessageChannel,
  type MessageFields,
  normaliseMessage,
} from '../../modules/bank-messages/index.js';

/** How close in time the SMS and the push of one transfer arrive, in seconds. */
export const CHANNEL_PAIR_SECONDS = 120;

/** The transport key of an event: hex SHA-256 over its identifying parts. */
export function transportKey(event: {
  deviceId: string;
  channel: MessageChannel | 'heartbeat';
  source: string;
  receivedAt: Date;
  text: string;
}): string {
  const second = Math.floor(event.receivedAt.getTime() / 1000);
  const parts = [
    event.deviceId,
    event.channel,
    event.source.trim().toLowerCase(),
    String(second),
    normaliseMessage(event.text),
  ];
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** A credit already read on the requisite, as the pairing compares it. */
export interface ReadCredit {
  channel: MessageChannel;
  requisiteId: string;
  receivedAt: Date;
  fields: MessageFields;
}

/** The first word of a payer's name, case-insensitive (banks write "АННА К." or "Анна К."). */
const payerKey = (payer: string) => (payer.split(' ')[0] ?? '').toLowerCase();

/**
 * Whether `b` is the other channel's message of the same transfer as `a`: SMS with push, same
 * requisite, same amount, within 120 s, and the balance and the payer equal where both show them.
 */
export function sameTransfer(a: ReadCredit, b: ReadCredit): boolean {
  if (a.channel === b.channel || a.requisiteId !== b.requisiteId) return false;
  if (!a.fields.amount || !b.fields.amount || !money(a.fields.amount).equals(money(b.fields.amount)))
    return false;
  if (Math.abs(a.receivedAt.getTime() - b.receivedAt.getTime()) > CHANNEL_PAIR_SECONDS * 1000) return false;
  if (a.fields.balance && b.fields.balance && !money(a.fields.balance).equals(money(b.fields.balance)))
    return false;
  if (a.fields.payer && b.fields.payer && payerKey(a.fields.payer) !== payerKey(b.fields.payer)) return false;
  return true;
}

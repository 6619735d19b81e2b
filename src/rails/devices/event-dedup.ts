/**
 * De-duplication of device events (docs/decisions.md section 24), the two levels that are rules; the third
 * (a credit confirms at most one order, an order is paid by at most one credit) is unique
 * constraints in the database.
 * - Transport: an app's retries, and the same SMS reported by two apps on the phone, carry other
 *   event ids and receive times a second or so apart, so the key is our own hash of device,
 *   channel, source and normalised text, with the minute; reports within 60 s are one message.
 * - Channel: the SMS and the push notification of one transfer are one credit; two messages of the
 *   same channel never are (they may be two real payments of the same amount). The other channel's
 *   message may arrive later than the pairing window: within the text time tolerance it may still
 *   be the same transfer (`CHANNEL_DOUBT_SECONDS`), so it confirms nothing by itself.
 */
import { createHash } from 'node:crypto';
import { money } from '../../lib/money.js';
import {
  type MessageChannel,
  type MessageFields,
  normaliseMessage,
} from '../../modules/bank-messages/index.js';
import { TEXT_TIME_TOLERANCE_MINUTES } from './credit-matching.js';

/** How close in time the SMS and the push of one transfer arrive, in seconds. */
export const CHANNEL_PAIR_SECONDS = 120;

/**
 * How far apart the SMS and the push of one transfer may still be, in seconds: the tolerance a
 * text's own time has (credit-matching.ts). Past the pairing window and within this one, a credit
 * that agrees with the other channel's in everything but time is neither paired nor credited.
 */
export const CHANNEL_DOUBT_SECONDS = TEXT_TIME_TOLERANCE_MINUTES * 60;

/** How close in time two reports of one message are (two apps on the phone, an app's retry), in seconds. */
export const SAME_MESSAGE_SECONDS = 60;

/** An event as its keys see it. */
export interface KeyedEvent {
  deviceId: string;
  channel: MessageChannel | 'heartbeat';
  source: string;
  receivedAt: Date;
  text: string;
}

/** Hex SHA-256 of what makes two reports one message: device, channel, sender and normalised text. */
export function contentKey(event: Omit<KeyedEvent, 'receivedAt'>): string {
  const parts = [
    event.deviceId,
    event.channel,
    event.source.replace(/\s+/g, '').toLowerCase(),
    normaliseMessage(event.text),
  ];
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

const minuteKey = (content: string, minute: number) =>
  createHash('sha256').update(`${content}\u0000${minute}`).digest('hex');

/**
 * The transport key of an event (the unique key stored with it): its content key and the minute it
 * was received. One message reported by two apps a second apart, or an app's retry, is the same
 * content within `SAME_MESSAGE_SECONDS`; since that may cross a minute, `nearKeys` gives the keys a
 * report of the same message may have been stored under.
 */
export function transportKey(event: KeyedEvent): string {
  return minuteKey(contentKey(event), Math.floor(event.receivedAt.getTime() / 60_000));
}

/** The transport keys of the same content in the minute of `receivedAt` and the two around it. */
export function nearKeys(event: KeyedEvent): string[] {
  const content = contentKey(event);
  const minute = Math.floor(event.receivedAt.getTime() / 60_000);
  return [minute - 1, minute, minute + 1].map((m) => minuteKey(content, m));
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
 * requisite, same amount, within `seconds` (120 s: paired), and the balance and the payer equal
 * where both show them. With `CHANNEL_DOUBT_SECONDS` it tells whether `b` may be that message.
 */
export function sameTransfer(a: ReadCredit, b: ReadCredit, seconds: number = CHANNEL_PAIR_SECONDS): boolean {
  if (a.channel === b.channel || a.requisiteId !== b.requisiteId) return false;
  if (!a.fields.amount || !b.fields.amount || !money(a.fields.amount).equals(money(b.fields.amount)))
    return false;
  if (Math.abs(a.receivedAt.getTime() - b.receivedAt.getTime()) > seconds * 1000) return false;
  if (a.fields.balance && b.fields.balance && !money(a.fields.balance).equals(money(b.fields.balance)))
    return false;
  if (a.fields.payer && b.fields.payer && payerKey(a.fields.payer) !== payerKey(b.fields.payer)) return false;
  return true;
}

/** SQL on device events for the rules learned from the review queue (docs/decisions.md "Rules learned from the review queue"). */
import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { deviceEvents } from '../../db/tables/devices.js';

/** How many stored non-credits a rule is checked against before it is switched on (the newest). */
export const STORED_NON_CREDITS = 5000;

/** Stored bank messages decided as non-credits (debit, block, one-time code, other), newest first. */
export function storedNonCredits(ex: Executor) {
  return ex
    .select({
      id: deviceEvents.id,
      kind: deviceEvents.kind,
      text: deviceEvents.text,
      title: deviceEvents.title,
    })
    .from(deviceEvents)
    .where(and(inArray(deviceEvents.kind, ['debit', 'block', 'otp', 'info']), isNotNull(deviceEvents.text)))
    .orderBy(desc(deviceEvents.createdAt))
    .limit(STORED_NON_CREDITS);
}

/** Messages of a bank and channel waiting in the review queue, newest first. */
export function reviewOfBank(ex: Executor, bankCode: string, channel: string) {
  return ex
    .select()
    .from(deviceEvents)
    .where(
      and(
        eq(deviceEvents.status, 'review'),
        eq(deviceEvents.bankCode, bankCode),
        eq(deviceEvents.channel, channel as 'sms' | 'push'),
        isNotNull(deviceEvents.text),
      ),
    )
    .orderBy(desc(deviceEvents.createdAt))
    .limit(300);
}

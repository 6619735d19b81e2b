import type { MultipartUpload } from '../../http/multipart.js';
import { AppError, invalidField } from '../../lib/errors.js';
import type { HolderActor, HolderOwnActions, HoldersService } from '../../modules/holders/index.js';
import { parseAmount } from '../../modules/holders/index.js';
import type { HolderDesk } from '../../rails/devices/index.js';
import type { PayoutsService } from '../../rails/payouts/index.js';
import type { ReceiptsService } from '../../rails/receipts/index.js';

/** How far back a missed payment may be reported, and how far ahead a phone's clock may be. */
const REPORT_PAST_MS = 7 * 86_400_000;
const REPORT_AHEAD_MS = 10 * 60_000;
const NOTE_MAX = 500;

/**
 * A `datetime-local` value (`YYYY-MM-DDTHH:MM`, Moscow time, as the report form sends it) as an
 * instant; VALIDATION_ERROR naming `received_at` when unreadable, in the future or older than a week.
 */
export function reportedTime(value: string | undefined, now: Date): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec((value ?? '').trim());
  const at = m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00+03:00`) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw invalidField('received_at', 'must be a date and time');
  if (at.getTime() > now.getTime() + REPORT_AHEAD_MS) throw invalidField('received_at', 'is in the future');
  if (at.getTime() < now.getTime() - REPORT_PAST_MS)
    throw invalidField('received_at', 'is more than 7 days ago');
  return at;
}

/**
 * The statement's period from the page's date inputs: `to` names the last day shown, so a bare
 * date means up to the end of that day (UTC, as the ledger's statement counts).
 */
export function periodOf(query: { from?: string | undefined; to?: string | undefined }) {
  const to = query.to?.trim();
  const end =
    to && /^\d{4}-\d{2}-\d{2}$/.test(to)
      ? new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString()
      : to;
  return { ...(query.from?.trim() ? { from: query.from.trim() } : {}), ...(end ? { to: end } : {}) };
}

/**
 * The holder's own page (docs/decisions.md "The holder's own page") over the modules' public
 * interfaces: the holders module (figures, requisites, settlements, statement, own pause and
 * resume), the devices rail (phones, today's orders, the missed-payment report into the review
 * queue) and the receipts rail (a report's file, sniffed and kept like a payout's proof). Every
 * read and write is scoped to the signed-in holder.
 */
export function createHolderPage(deps: {
  holders: HoldersService;
  own: HolderOwnActions;
  desk: HolderDesk;
  receipts: ReceiptsService;
  /** Payouts given to the holder to send from their card (docs/decisions.md "Payouts on the holder's page"). */
  payouts: Pick<PayoutsService, 'holderPayouts' | 'sendAsHolder'>;
  clock: { now(): number };
}) {
  const { holders, own, desk, receipts, payouts } = deps;
  return {
    /** Everything the home page shows: the holder, figures, requisites, phones, today's orders, payouts to send. */
    async home(holderId: string) {
      const holder = await holders.get(holderId);
      const ids = holder.requisites.map((r) => r.id);
      const [phones, orders, given] = await Promise.all([
        desk.phones(holderId, ids),
        desk.todayOrders(ids),
        payouts.holderPayouts(holderId),
      ]);
      return { holder, phones, orders, payoutsToSend: given.toSend };
    },

    /** The payouts page: those to send and those sent in the last 7 days (`holderPayouts`). */
    payouts: (holderId: string) => payouts.holderPayouts(holderId),

    /**
     * The holder marks payout `id` sent with the form's receipt (`sendAsHolder`: NOT_YOUR_PAYOUT,
     * RECEIPT_REQUIRED, the receipt codes, ORDER_STATE_CONFLICT; nothing written on a refusal). The
     * form's note (at most 500 characters) becomes the order's status reason.
     */
    async sendPayout(actor: HolderActor, id: string, upload: MultipartUpload) {
      const note = (upload.fields.note ?? '').trim();
      if (note.length > NOTE_MAX) throw invalidField('note', `at most ${NOTE_MAX} characters`);
      return payouts.sendAsHolder(actor, id, upload, note || null);
    },

    /** The statement of a period and the settlements (`holders.statement`). */
    async statement(holderId: string, query: { from?: string | undefined; to?: string | undefined }) {
      const [statement, holder] = await Promise.all([
        holders.statement(holderId, periodOf(query)),
        holders.get(holderId),
      ]);
      return { statement, settlements: holder.settlements };
    },

    /** The statement's CSV rows (`holders.statementRows`, STATEMENT_CSV_COLUMNS). */
    statementRows: (holderId: string, query: { from?: string | undefined; to?: string | undefined }) =>
      holders.statementRows(holderId, periodOf(query)),

    /** The report form: the holder's requisites and the time now as its `datetime-local` (Moscow). */
    async reportForm(holderId: string) {
      const nowLocal = new Date(deps.clock.now() + 3 * 3600_000).toISOString().slice(0, 16);
      return { requisites: (await holders.get(holderId)).requisites, nowLocal };
    },

    pause: (actor: HolderActor, requisiteId: string) => own.pause(actor, requisiteId),
    resume: (actor: HolderActor, requisiteId: string) => own.resume(actor, requisiteId),

    /**
     * A payment the holder's phone missed, from the report form's multipart upload: the requisite
     * must be theirs (NOT_YOUR_REQUISITE), the amount positive (INVALID_AMOUNT), the time readable
     * and recent (VALIDATION_ERROR), the file PDF/JPEG/PNG by its content (RECEIPT_*). Every check
     * comes before anything is written; the file is dropped on any refusal. The report goes to the
     * operators' review queue and credits nothing.
     */
    async report(actor: HolderActor, upload: MultipartUpload) {
      const f = upload.fields;
      const requisiteId = (f.requisite_id ?? '').trim();
      const requisite = (await holders.get(actor.holderId)).requisites.find((r) => r.id === requisiteId);
      if (!requisite) throw new AppError('NOT_YOUR_REQUISITE');
      const amount = parseAmount(f.amount ?? '', 'amount', 'positive');
      const receivedAt = reportedTime(f.received_at, new Date(deps.clock.now()));
      const note = (f.note ?? '').trim();
      if (note.length > NOTE_MAX) throw invalidField('note', `at most ${NOTE_MAX} characters`);
      const file = await receipts.keepProof(upload);
      try {
        return await desk.reportMissed({
          holderId: actor.holderId,
          login: actor.login,
          ip: actor.ip,
          requisiteId,
          amount,
          currency: requisite.currency,
          receivedAt,
          note,
          receipt: file ? { id: file.id, contentType: file.contentType } : null,
        });
      } catch (err) {
        if (file) await receipts.removeProof(file);
        throw err;
      }
    },
  };
}

export type HolderPage = ReturnType<typeof createHolderPage>;

import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { receipts } from '../../db/tables/receipts.js';
import type { MultipartUpload, Spooled, UploadPart } from '../../http/multipart.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { type OrderRow, orderQueries } from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { OutboundGuard } from '../../platform/outbound/index.js';
import { judgeReceiptContent, MAX_RECEIPT_BYTES, RECEIPT_TYPES } from './receipt-content.js';
import { downloadReceipt } from './receipt-fetch.js';
import type { ReceiptStorage } from './receipt-storage.js';
import {
  insertReceipt,
  type ReceiptRow,
  type ReceiptSource,
  type StoredFile,
  syncOrderReceiptStatus,
  underReview,
} from './receipts-repository.js';

export type ReceiptView = ReturnType<typeof receiptView>;

/** Work that commits with a new receipt's row (an appeal opened with it); throwing undoes both. */
export type Within = (tx: Executor, receipt: ReceiptRow) => Promise<void>;

/** A receipt as the admin API, the portal and event bodies show it. */
export function receiptView(r: ReceiptRow) {
  return {
    id: r.id,
    order_id: r.orderId,
    merchant_id: r.merchantId,
    source: r.source,
    source_url: r.sourceUrl,
    content_type: r.contentType,
    size_bytes: r.sizeBytes,
    status: r.status,
    reason: r.reason,
    reviewed_by: r.reviewedBy,
    reviewed_at: r.reviewedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

/** What receipts work with. */
export interface ReceiptsDeps {
  database: Database;
  clock: Clock;
  storage: ReceiptStorage;
  guard: OutboundGuard;
  /** Called in the transaction that judged a receipt (docs/decisions.md section 27: receipt.accepted / receipt.rejected). */
  onDecided?: (ex: Executor, order: OrderRow, receipt: ReceiptView) => Promise<void>;
}

/** The error codes of a path that brings a receipt's content (a file, or a URL). */
type ContentCodes = { tooLarge: ErrorCode; unsupported: ErrorCode; mismatch: ErrorCode };

const FILE_CODES = {
  tooLarge: 'RECEIPT_TOO_LARGE',
  unsupported: 'RECEIPT_UNSUPPORTED_FORMAT',
  mismatch: 'RECEIPT_CONTENT_MISMATCH',
} as const satisfies ContentCodes;

const URL_CODES = {
  tooLarge: 'RECEIPT_URL_TOO_LARGE',
  unsupported: 'RECEIPT_URL_UNSUPPORTED_FORMAT',
  mismatch: 'RECEIPT_URL_UNSUPPORTED_FORMAT',
} as const satisfies ContentCodes;

/**
 * Reads a multipart upload: the `orderId` field and the `receipt` file (spooled to disk, at most
 * 5 MB kept; the rest of a bigger file is read and dropped, so memory stays bounded). Other parts
 * are drained and ignored.
 */
async function readMultipart(
  storage: ReceiptStorage,
  parts: AsyncIterable<UploadPart>,
  fileField: string,
): Promise<MultipartUpload> {
  const out: MultipartUpload = { orderId: undefined, fields: {}, file: undefined };
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        const value = typeof part.value === 'string' ? part.value : undefined;
        if (value !== undefined && !(part.fieldname in out.fields)) out.fields[part.fieldname] = value;
        if (part.fieldname === 'orderId' && value?.trim()) out.orderId = value.trim();
        continue;
      }
      // A browser form with no file chosen still sends an empty, nameless file part.
      if (part.fieldname !== fileField || out.file || part.filename === '') {
        part.file.resume();
        continue;
      }
      const spooled = await storage.spool(part.file, MAX_RECEIPT_BYTES);
      out.file = {
        spooled: { ...spooled, overflow: spooled.overflow || part.file.truncated },
        mimetype: part.mimetype,
        filename: part.filename,
      };
    }
  } catch (err) {
    // A refused or malformed upload leaves nothing spooled behind.
    if (out.file) await storage.discard(out.file.spooled);
    const status = (err as { statusCode?: number }).statusCode;
    if (err instanceof AppError || (status !== undefined && status >= 400 && status < 500)) throw err;
    throw new AppError('VALIDATION_ERROR', [{ field: 'body', problem: 'malformed multipart body' }]);
  }
  return out;
}

/**
 * Checks the spooled content (size, format) and keeps it in the storage under a new id, before
 * any row exists: a storage failure leaves nothing under review (a file without a row is never
 * shown). `codes` are the error codes of the path (file or URL). The spool file is removed on
 * every failure.
 */
async function storeFile(
  storage: ReceiptStorage,
  spooled: Spooled,
  declared: { mimetype?: string; filename?: string },
  codes: ContentCodes,
): Promise<StoredFile> {
  try {
    if (spooled.overflow) throw new AppError(codes.tooLarge);
    const verdict = await judgeReceiptContent(spooled.head, declared);
    if (!verdict.ok)
      throw new AppError(verdict.problem === 'unsupported' ? codes.unsupported : codes.mismatch);
    const id = randomUUID();
    await storage.keep(spooled, id);
    return { id, contentType: verdict.mime, size: spooled.size };
  } catch (err) {
    await storage.discard(spooled);
    throw err;
  }
}

/** Where a receipt's content came from, and what it claims to be. */
interface Arrival {
  source: ReceiptSource;
  declared: { mimetype?: string; filename?: string };
  codes: ContentCodes;
  sourceUrl: string | null;
}

/** Stores the file, then its row (and the order's receipt status) in one transaction; no row, no file. */
async function attach(
  deps: ReceiptsDeps,
  order: OrderRow,
  spooled: Spooled,
  arrival: Arrival,
  within: Within | undefined,
): Promise<ReceiptRow> {
  const { storage, clock } = deps;
  const file = await storeFile(storage, spooled, arrival.declared, arrival.codes);
  try {
    return await deps.database.db.transaction(async (tx) => {
      const { source, sourceUrl } = arrival;
      const row = await insertReceipt(tx, { order, file, source, sourceUrl, now: new Date(clock.now()) });
      if (within) await within(tx, row);
      return row;
    });
  } catch (err) {
    await storage.remove(file.id).catch(() => undefined);
    throw err;
  }
}

/**
 * Judges a receipt under review in the caller's transaction: the receipt, the order's receipt
 * status, the audit entry and the `onDecided` hook (receipt.accepted / receipt.rejected events).
 * Returns the receipt, or 'missing' / 'decided' (already judged: nothing written).
 */
async function decide(
  deps: ReceiptsDeps,
  tx: Executor,
  id: string,
  decision: 'accepted' | 'rejected',
  reason: string | null,
  actor: AdminActor,
): Promise<ReturnType<typeof receiptView> | 'missing' | 'decided'> {
  const { clock } = deps;
  const before = (await tx.select().from(receipts).where(eq(receipts.id, id)).for('update'))[0];
  if (!before) return 'missing';
  if (before.status !== 'under_review') return 'decided';
  const after = (
    await tx
      .update(receipts)
      .set({ status: decision, reason, reviewedBy: actor.name, reviewedAt: new Date(clock.now()) })
      .where(eq(receipts.id, id))
      .returning()
  )[0];
  if (!after) return 'missing';
  await syncOrderReceiptStatus(tx, before.orderId, new Date(clock.now()));
  await writeAudit(tx, actor, {
    action: decision === 'accepted' ? 'receipt.accept' : 'receipt.reject',
    targetType: 'order',
    targetId: before.orderId,
    before: { receipt_id: id, status: before.status },
    after: { receipt_id: id, status: decision, reason },
  });
  const view = receiptView(after);
  const order = deps.onDecided ? await orderQueries.findOrderById(tx, before.orderId) : undefined;
  if (order && deps.onDecided) await deps.onDecided(tx, order, view);
  return view;
}

/** The operators' reads: an order's receipts, the moderation queue, a stored file. */
function receiptReads(deps: ReceiptsDeps) {
  const db = deps.database.db;
  return {
    /** Every receipt of one order, newest first (the console's order page). */
    async forOrder(orderId: string) {
      const rows = await db
        .select()
        .from(receipts)
        .where(eq(receipts.orderId, orderId))
        .orderBy(desc(receipts.createdAt));
      return rows.map(receiptView);
    },

    /** Operators: live receipts by status, oldest under review first (sandbox ones are the sandbox's). */
    async list(status: ReceiptRow['status'] | undefined, limit = 200) {
      const rows = await db
        .select()
        .from(receipts)
        .where(and(eq(receipts.test, false), status ? eq(receipts.status, status) : undefined))
        .orderBy(status === 'under_review' ? receipts.createdAt : desc(receipts.createdAt))
        .limit(limit);
      return rows.map(receiptView);
    },

    /**
     * A file kept without a receipt row (`keepProof`: a holder's missed-payment report) by its id and
     * the type its content was judged to be, for the operators' viewer. NOT_FOUND for an id that is
     * not one or a type that is not a receipt's.
     */
    async keptFile(id: string, contentType: string) {
      if (!isUuid(id) || !Object.hasOwn(RECEIPT_TYPES, contentType)) throw new AppError('NOT_FOUND');
      const { stream, size } = await deps.storage.open(id).catch(() => {
        throw new AppError('NOT_FOUND');
      });
      const ext = RECEIPT_TYPES[contentType]?.[0] ?? 'bin';
      return { stream, size, contentType, filename: `receipt-${id}.${ext}` };
    },

    /** The stored file with its sniffed type, for the operators' viewer. */
    async file(id: string) {
      if (!isUuid(id)) throw new AppError('NOT_FOUND');
      const row = (await db.select().from(receipts).where(eq(receipts.id, id)).limit(1))[0];
      if (!row) throw new AppError('NOT_FOUND');
      const { stream, size } = await deps.storage.open(row.storageKey);
      return {
        stream,
        size,
        contentType: row.contentType,
        filename: `receipt-${row.id}.${row.contentType.split('/')[1] === 'jpeg' ? 'jpg' : row.contentType.split('/')[1]}`,
      };
    },
  };
}

/**
 * Receipts (docs/api.md "POST /merchant/receipt/upload"; docs/decisions.md section 9): upload by file
 * or URL, content checks, storage, and moderation by support.
 */
export function createReceiptsService(deps: ReceiptsDeps) {
  const { database, clock, storage, guard } = deps;
  const db = database.db;

  async function assertNotUnderReview(orderId: string): Promise<void> {
    if (await underReview(db, orderId)) throw new AppError('MODERATION_IN_PROGRESS');
  }

  return {
    readMultipart: (parts: AsyncIterable<UploadPart>, fileField: string) =>
      readMultipart(storage, parts, fileField),

    /**
     * A payout's proof of transfer (docs/decisions.md section 10): checked and kept now, outside any transaction; its row
     * is written by `recordProof` in the transaction that marks the payout sent, and `removeProof`
     * deletes the file when that transaction fails.
     */
    keepProof(upload: MultipartUpload): Promise<StoredFile | undefined> {
      if (!upload.file) return Promise.resolve(undefined);
      const { spooled, mimetype, filename } = upload.file;
      return storeFile(storage, spooled, { mimetype, filename }, FILE_CODES);
    },
    recordProof: (ex: Executor, order: OrderRow, file: StoredFile) =>
      insertReceipt(ex, { order, file, source: 'payout_proof', sourceUrl: null, now: new Date(clock.now()) }),
    removeProof: (file: StoredFile) => storage.remove(file.id).catch(() => undefined),

    /**
     * Attaches an uploaded file to `order` (ownership already checked): ORDER_ID_REQUIRED /
     * RECEIPT_REQUIRED for missing parts, MODERATION_IN_PROGRESS while one is under review, then the
     * content rules. Returns the receipt; `within` runs in the transaction that writes its row.
     */
    async attachFile(
      order: OrderRow,
      upload: MultipartUpload,
      source: ReceiptSource = 'file',
      within?: Within,
    ): Promise<ReceiptRow> {
      if (!upload.file) throw new AppError('RECEIPT_REQUIRED');
      try {
        if (source !== 'payout_proof') await assertNotUnderReview(order.id);
      } catch (err) {
        await storage.discard(upload.file.spooled);
        throw err;
      }
      const { spooled, mimetype, filename } = upload.file;
      const declared = { mimetype, filename };
      return attach(deps, order, spooled, { source, declared, codes: FILE_CODES, sourceUrl: null }, within);
    },

    /**
     * Downloads `receiptUrl` through the outbound guard and attaches it to `order`; `within` runs in
     * the transaction that writes the receipt's row (an appeal opened with it).
     */
    async attachUrl(order: OrderRow, receiptUrl: string, within?: Within): Promise<ReceiptRow> {
      await assertNotUnderReview(order.id);
      const spooled = await downloadReceipt(receiptUrl, guard, storage);
      const arrival = {
        source: 'url' as const,
        declared: {},
        codes: URL_CODES,
        sourceUrl: receiptUrl.slice(0, 2048),
      };
      return attach(deps, order, spooled, arrival, within);
    },

    /** Deletes spool files left by a crash (older than `olderThanMs`); the jobs call it. */
    sweepSpool: (olderThanMs: number) => storage.sweepSpool(olderThanMs, clock.now()),

    /** Drops the spooled file of an upload that is refused before attaching (unknown order, ...). */
    async discardUpload(upload: MultipartUpload): Promise<void> {
      if (upload.file) await storage.discard(upload.file.spooled);
    },

    ...receiptReads(deps),

    /** Support's decision on a receipt under review; audited. ORDER_STATE_CONFLICT when already decided. */
    async review(id: string, decision: 'accepted' | 'rejected', reason: string | null, actor: AdminActor) {
      if (!isUuid(id)) throw new AppError('NOT_FOUND');
      return db.transaction(async (tx) => {
        const after = await decide(deps, tx, id, decision, reason, actor);
        if (after === 'missing') throw new AppError('NOT_FOUND');
        if (after === 'decided') throw new AppError('ORDER_STATE_CONFLICT');
        return after;
      });
    },

    /** Judges a receipt in the caller's transaction (see `decide`): the appeals' and the sandbox's path. */
    decide: (
      tx: Executor,
      id: string,
      decision: 'accepted' | 'rejected',
      reason: string | null,
      actor: AdminActor,
    ) => decide(deps, tx, id, decision, reason, actor),
  };
}

export type ReceiptsService = ReturnType<typeof createReceiptsService>;

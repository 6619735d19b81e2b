import { fileTypeFromBuffer } from 'file-type';

/** Largest receipt, bytes (merchant-api.md "Limits": 5 MB, file and URL). */
export const MAX_RECEIPT_BYTES = 5 * 1024 * 1024;

/** Bytes of the head that content sniffing reads. */
export const SNIFF_BYTES = 4100;

/** Receipt formats by content (merchant-api.md receipt rules 2-3). */
export const RECEIPT_TYPES: Record<string, string[]> = {
  'application/pdf': ['pdf'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/png': ['png'],
};

export type ContentVerdict =
  | { ok: true; mime: string; ext: string }
  | { ok: false; problem: 'unsupported' | 'mismatch' };

/**
 * Judges a receipt by its first bytes (decisions.md section 9): content that is not PDF, JPEG or PNG
 * is unsupported; a supported content whose declared type or file name says another supported
 * format is a mismatch (a PNG named `.pdf`). Generic declarations (octet-stream, no extension) pass.
 */
export async function judgeReceiptContent(
  head: Uint8Array,
  declared: { mimetype?: string | undefined; filename?: string | undefined },
): Promise<ContentVerdict> {
  const sniffed = await fileTypeFromBuffer(head);
  if (!sniffed || !RECEIPT_TYPES[sniffed.mime]) return { ok: false, problem: 'unsupported' };
  const declaredMime = (declared.mimetype ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (declaredMime && declaredMime !== 'application/octet-stream' && declaredMime !== sniffed.mime) {
    const claimsOther = declaredMime === 'image/jpg' ? sniffed.mime !== 'image/jpeg' : true;
    if (claimsOther) return { ok: false, problem: 'mismatch' };
  }
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(declared.filename ?? '')?.[1]?.toLowerCase();
  if (ext && !(RECEIPT_TYPES[sniffed.mime] ?? []).includes(ext)) return { ok: false, problem: 'mismatch' };
  return { ok: true, mime: sniffed.mime, ext: sniffed.ext };
}

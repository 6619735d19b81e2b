/** Largest receipt, bytes (docs/api.md "Limits": 5 MB, file and URL). */
export const MAX_RECEIPT_BYTES = 5 * 1024 * 1024;

/** Bytes of the head that content sniffing reads. */
export const SNIFF_BYTES = 4100;

/** Receipt formats by content (docs/api.md receipt rules 2-3). */
export const RECEIPT_TYPES: Record<string, string[]> = {
  'application/pdf': ['pdf'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/png': ['png'],
};

export type ContentVerdict =
  | { ok: true; mime: string; ext: string }
  | { ok: false; problem: 'unsupported' | 'mismatch' };

/**
 * Judges a receipt by its first bytes (docs/api.md receipt rule 2; docs/decisions.md section 9):
 * content that is not PDF, JPEG or PNG is unsupported. The bytes decide; a declaration only counts
 * when it names one of these three formats and contradicts the bytes (a PNG declared
 * `application/pdf`, or named `.pdf`): a mismatch. Any other declared type (none, which busboy
 * reports as `text/plain`, `application/octet-stream`, ...) or file name (`scan.bin`) is no claim
 * about the format: a real client such as Python's `requests` sends file parts without a type.
 */
export async function judgeReceiptContent(
  head: Uint8Array,
  declared: { mimetype?: string | undefined; filename?: string | undefined },
): Promise<ContentVerdict> {
  // file-type is loaded at the first receipt, not at start.
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(head);
  if (!sniffed || !Object.hasOwn(RECEIPT_TYPES, sniffed.mime)) return { ok: false, problem: 'unsupported' };
  const declaredMime = canonicalMime((declared.mimetype ?? '').split(';')[0]?.trim().toLowerCase() ?? '');
  if (Object.hasOwn(RECEIPT_TYPES, declaredMime) && declaredMime !== sniffed.mime) {
    return { ok: false, problem: 'mismatch' };
  }
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(declared.filename ?? '')?.[1]?.toLowerCase() ?? '';
  const named = Object.values(RECEIPT_TYPES).some((exts) => exts.includes(ext));
  if (named && !(RECEIPT_TYPES[sniffed.mime] ?? []).includes(ext)) return { ok: false, problem: 'mismatch' };
  return { ok: true, mime: sniffed.mime, ext: sniffed.ext };
}

/** `image/jpg` (common, not registered) is `image/jpeg`. */
function canonicalMime(mime: string): string {
  return mime === 'image/jpg' ? 'image/jpeg' : mime;
}

import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';

/** Largest uploaded file, bytes (docs/api.md "Limits": a receipt is at most 5 MB). */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

/**
 * @fastify/multipart limits of every form that takes a file (receipts, payout proofs): one file of at
 * most 5 MB (busboy drops the rest and marks it truncated), a few small text fields.
 */
export const MULTIPART_LIMITS = {
  fileSize: MAX_UPLOAD_BYTES,
  files: 1,
  fields: 10,
  fieldSize: 4096,
  parts: 20,
};

/** Whether the request body is `multipart/form-data`. */
export function isMultipart(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** One part of a multipart upload as @fastify/multipart yields it. */
export type UploadPart = MultipartFile | MultipartValue;

/** A received upload spooled to a temporary file: its size, its first bytes, and whether it overflowed. */
export interface Spooled {
  path: string;
  size: number;
  head: Buffer;
  /** More than the limit arrived; the file holds only the first bytes up to it. */
  overflow: boolean;
}

/** What a multipart upload carried: its text fields and its one spooled file. */
export interface MultipartUpload {
  orderId: string | undefined;
  /** Every text field of the form (first value of each name). */
  fields: Record<string, string>;
  file: { spooled: Spooled; mimetype: string; filename: string } | undefined;
}

/**
 * Reads a multipart request into its text fields and its one spooled file (the receipts module's
 * storage spools it), and drops what is left when the request is refused. Routes that take files
 * receive it from the composition root.
 */
export interface UploadReader {
  read(parts: AsyncIterable<UploadPart>, fileField: string): Promise<MultipartUpload>;
  discard(upload: MultipartUpload): Promise<void>;
}

import type { ExtractOptions } from './types.js';

/**
 * Size of the pieces a file is handed to fetch in. undici refreshes its
 * headers timer per piece that meets backpressure; one big piece would let
 * a slow upload trip it (see timeouts.ts).
 */
export const UPLOAD_PART_BYTES = 64 * 1024;

/** A file to upload to `documents`, already in memory (at most 10 MB, so reading it whole is fine). */
export interface UploadFile {
  /** The file's bytes; sent in 64 KiB views, never copied. */
  body: Uint8Array;
  /** The name sent with the file part, e.g. `invoice.pdf`. */
  filename: string;
  /** The part's media type: `application/pdf`, `image/jpeg` or `image/png`. */
  contentType: string;
}

/** The file as a Blob of 64 KiB views of the same memory (no copy). */
function chunkedBlob(body: Uint8Array, contentType: string): Blob {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < body.byteLength; offset += UPLOAD_PART_BYTES) {
    parts.push(body.subarray(offset, offset + UPLOAD_PART_BYTES));
  }
  return new Blob(parts, { type: contentType });
}

/**
 * The `options` field value, or undefined when there is nothing to send.
 * Only the three documented keys go out, and undefined values are dropped,
 * so `{}` and `{ model: undefined }` send no field at all.
 */
function encodeOptions(options: ExtractOptions | undefined): string | undefined {
  if (!options) return undefined;
  const picked: ExtractOptions = {};
  if (options.model !== undefined) picked.model = options.model;
  if (options.document_type !== undefined) picked.document_type = options.document_type;
  if (options.store_db !== undefined) picked.store_db = options.store_db;
  return Object.keys(picked).length > 0 ? JSON.stringify(picked) : undefined;
}

/** multipart/form-data with `file` and, when given, the `options` JSON string (a plain field, not a part with a JSON type). */
export function documentsForm(file: UploadFile, options: ExtractOptions | undefined): FormData {
  const form = new FormData();
  form.append('file', chunkedBlob(file.body, file.contentType), file.filename);
  const encoded = encodeOptions(options);
  if (encoded !== undefined) form.append('options', encoded);
  return form;
}

/** The optional `process` body: only an `options` field, or no body at all. */
export function processForm(options: ExtractOptions | undefined): FormData | undefined {
  const encoded = encodeOptions(options);
  if (encoded === undefined) return undefined;
  const form = new FormData();
  form.append('options', encoded);
  return form;
}

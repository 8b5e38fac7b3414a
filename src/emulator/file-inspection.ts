import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';

export type AcceptedType = 'application/pdf' | 'image/jpeg' | 'image/png';
export const ACCEPTED_TYPES: readonly AcceptedType[] = ['application/pdf', 'image/jpeg', 'image/png'];

const PDF_HEADER = Buffer.from('%PDF-', 'latin1');
const PDF_HEADER_SEARCH_BYTES = 1024;
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Files carrying this ASCII marker always fail extraction: the tests' deterministic 422. */
export const FAIL_EXTRACTION_MARKER = Buffer.from('%docextract-emulator:fail-extraction', 'latin1');

/**
 * The file's type by its content (magic bytes), never by name or declared
 * content type, as the service does. A PDF header may sit anywhere in the
 * first 1024 bytes, which is what PDF readers tolerate.
 */
export function detectFileType(bytes: Buffer): AcceptedType | null {
  if (bytes.subarray(0, PDF_HEADER_SEARCH_BYTES).includes(PDF_HEADER)) return 'application/pdf';
  if (bytes.subarray(0, JPEG_MAGIC.length).equals(JPEG_MAGIC)) return 'image/jpeg';
  if (bytes.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC)) return 'image/png';
  return null;
}

/** Page count by pdf-lib (independent of any client's counter); null when the PDF cannot be read. */
export async function countPdfPages(bytes: Buffer): Promise<number | null> {
  try {
    const document = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
    return document.getPageCount();
  } catch {
    return null;
  }
}

export function hasFailExtractionMarker(bytes: Buffer): boolean {
  return bytes.includes(FAIL_EXTRACTION_MARKER);
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

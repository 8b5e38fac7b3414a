/** The file types the service accepts (API v3.1 §4.1: PDF, JPG, PNG). */
export type AcceptedFileType = 'pdf' | 'jpeg' | 'png';

export type AcceptedContentType = 'application/pdf' | 'image/jpeg' | 'image/png';

/** How many leading bytes `detectFileType` looks at; read at least this much. */
const FILE_TYPE_HEAD_BYTES = 1024;

const PDF_HEADER = Buffer.from('%PDF-', 'latin1');
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The type of a file judged by its content, as the service judges it, never
 * by its name. `%PDF-` may sit anywhere in the first 1024 bytes because
 * readers accept junk before the header (mail gateways and scanners leave it).
 */
export function detectFileType(head: Uint8Array): AcceptedFileType | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return 'png';
  if (startsWith(head, JPEG_SIGNATURE)) return 'jpeg';
  const window = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, FILE_TYPE_HEAD_BYTES));
  return window.includes(PDF_HEADER) ? 'pdf' : undefined;
}

export function contentTypeFor(type: AcceptedFileType): AcceptedContentType {
  switch (type) {
    case 'pdf':
      return 'application/pdf';
    case 'jpeg':
      return 'image/jpeg';
    case 'png':
      return 'image/png';
  }
}

/** For messages: "PDF, JPEG or PNG". */
export const ACCEPTED_TYPES_TEXT = 'PDF, JPEG or PNG';

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return signature.length <= bytes.length && signature.every((byte, i) => bytes[i] === byte);
}

/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  /** null when the part has no filename: PHP then treats it as a plain field, not an upload. */
  filename: string | null;
  data: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export function multipartBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

/**
 * A small multipart/form-data parser (RFC 7578), enough for what clients
 * send: parts with a Content-Disposition name and optional filename. Returns
 * null for a body that does not follow the format.
 */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let cursor = body.indexOf(delimiter);
  if (cursor < 0) return null;
  while (true) {
    cursor += delimiter.length;
    if (body.subarray(cursor, cursor + 2).toString('latin1') === '--') return parts;
    if (!body.subarray(cursor, cursor + 2).equals(CRLF)) return null;
    const headersStart = cursor + 2;
    const headersEnd = body.indexOf(HEADER_END, headersStart);
    if (headersEnd < 0) return null;
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headersEnd + HEADER_END.length);
    if (next < 0) return null;
    const part = partFrom(body.subarray(headersStart, headersEnd).toString('utf8'), body.subarray(headersEnd + HEADER_END.length, next));
    if (part !== null) parts.push(part);
    cursor = next + CRLF.length;
  }
}

function partFrom(rawHeaders: string, data: Buffer): FormPart | null {
  const disposition = rawHeaders.split('\r\n').find((line) => /^content-disposition\s*:/i.test(line));
  if (disposition === undefined) return null;
  const name = dispositionParam(disposition, 'name');
  if (name === null) return null;
  const filename = dispositionParam(disposition, 'filename');
  // PHP (and so the service) treats an upload with an empty filename as "no file".
  return { name, filename: filename === '' ? null : filename, data };
}

function dispositionParam(disposition: string, param: string): string | null {
  const match = new RegExp(`;\\s*${param}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition) ?? new RegExp(`;\\s*${param}=([^;\\s]+)`, 'i').exec(disposition);
  return match?.[1] === undefined ? null : match[1].replace(/\\(.)/g, '$1');
}

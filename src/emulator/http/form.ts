import { multipartBoundary, parseMultipart, type FormPart } from './multipart.js';

/** A request body read as a form. `other` = a body that is no form at all (ignored where the body is optional). */
export interface RequestForm {
  kind: 'empty' | 'multipart' | 'urlencoded' | 'malformed' | 'other';
  parts: FormPart[];
}

export function readForm(body: Buffer, contentType: string | undefined): RequestForm {
  const boundary = multipartBoundary(contentType);
  if (boundary !== null) {
    const parts = parseMultipart(body, boundary);
    return parts === null ? { kind: 'malformed', parts: [] } : { kind: 'multipart', parts };
  }
  if (body.length === 0) return { kind: 'empty', parts: [] };
  if (contentType !== undefined && /^\s*application\/x-www-form-urlencoded/i.test(contentType)) {
    const params = new URLSearchParams(body.toString('utf8'));
    return { kind: 'urlencoded', parts: [...params].map(([name, value]) => ({ name, filename: null, data: Buffer.from(value, 'utf8') })) };
  }
  return { kind: 'other', parts: [] };
}

/**
 * A plain form field. Parts that carry a filename are uploads, not fields: PHP
 * files them under $_FILES, so an `options` sent as a file part is ignored.
 */
export function formField(form: RequestForm, name: string): string | undefined {
  return form.parts.find((part) => part.name === name && part.filename === null)?.data.toString('utf8');
}

/** A file upload (a part with a filename). */
export function formUpload(form: RequestForm, name: string): FormPart | undefined {
  return form.parts.find((part) => part.name === name && part.filename !== null);
}

import { ApiFailure } from '../api-failure.js';
import { ACCEPTED_TYPES, countPdfPages, detectFileType, type AcceptedType } from '../file-inspection.js';
import type { ReceivedBody } from '../http/body.js';
import { formUpload, readForm, type RequestForm } from '../http/form.js';
import type { FormPart } from '../http/multipart.js';

const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_PAGES = 150;
/** Room for the multipart framing and the options field around a maximal file. */
export const DOCUMENTS_BODY_CAP = MAX_FILE_BYTES + 1024 * 1024;

export interface InspectedFile {
  type: AcceptedType;
  pages: number;
}

function tooLarge(): ApiFailure {
  return new ApiFailure(413, 'file_too_large', `The file is larger than ${MAX_FILE_BYTES} bytes (10 MB).`, { max_bytes: MAX_FILE_BYTES });
}

/** The form of a documents request, read before auth so that uploads can be counted; errors wait for validation. */
export function documentsForm(body: ReceivedBody, contentType: string | undefined): RequestForm | null {
  return body.bytes === null ? null : readForm(body.bytes, contentType);
}

/** The file part, if the request carried one whole (for the upload counter; no errors here). */
export function receivedFile(body: ReceivedBody, form: RequestForm | null): FormPart | undefined {
  return body.tooLarge || form === null ? undefined : formUpload(form, 'file');
}

/** The uploaded `file` part (with its form), or the 413/400 the request deserves. */
export function requireUpload(body: ReceivedBody, form: RequestForm | null): { file: FormPart; form: RequestForm } {
  if (body.tooLarge) throw tooLarge();
  if (form === null || form.kind !== 'multipart') {
    throw new ApiFailure(400, 'invalid_request', 'Send multipart/form-data with the document in a field named "file".');
  }
  const upload = formUpload(form, 'file');
  if (upload === undefined) {
    const asField = form.parts.some((part) => part.name === 'file');
    throw new ApiFailure(400, 'invalid_request', asField ? 'The "file" field must be a file upload (a part with a filename).' : 'Missing the "file" field.');
  }
  return { file: upload, form };
}

/** Size, content type by magic bytes, and page count, in that order. */
export async function inspectUpload(file: Buffer): Promise<InspectedFile> {
  if (file.length > MAX_FILE_BYTES) throw tooLarge();
  if (file.length === 0) throw new ApiFailure(400, 'invalid_file', 'The file is empty.');
  const type = detectFileType(file);
  if (type === null) {
    throw new ApiFailure(400, 'invalid_file_type', 'Only PDF, JPEG and PNG files are accepted (checked by content, not by name).', {
      accepted_types: [...ACCEPTED_TYPES],
    });
  }
  if (type !== 'application/pdf') return { type, pages: 1 };
  const pages = await countPdfPages(file);
  if (pages === null || pages < 1) throw new ApiFailure(400, 'invalid_file', 'The PDF could not be read or has no pages.');
  if (pages > MAX_PAGES) {
    throw new ApiFailure(400, 'page_limit_exceeded', `The PDF has ${pages} pages; the maximum is ${MAX_PAGES}.`, { pages, max_pages: MAX_PAGES });
  }
  return { type, pages };
}

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SERVICE_LIMITS } from '../api/limits.js';
import { cutPdf } from '../files/pdf-cut.js';
import type { PlannedDocument } from './batch-types.js';
import { errorMessage } from './flow-context.js';

/** The bytes an upload sends, or why nothing can be sent (a local refusal: nothing left the machine). */
export type UploadBody = { ok: true; body: Buffer } | { ok: false; code: string; message: string };

/**
 * What an upload of `doc` sends, read now: the file as it was preflighted,
 * or the cut of its selected pages (encryption, pdf-lib's page count and the
 * cut's size are checked only here, where the cut is made). The run prepares
 * each upload with it, and `--dry-run` asks it of each file it would send:
 * one check, so the preview refuses exactly what the run will.
 */
export async function uploadBody(doc: Pick<PlannedDocument, 'path' | 'displayPath' | 'sha256' | 'sourcePages' | 'sourcePageCount'>): Promise<UploadBody> {
  let body: Buffer;
  try {
    body = await readFile(doc.path);
  } catch (error) {
    return { ok: false, code: 'file_unreadable', message: `cannot read ${doc.displayPath}: ${errorMessage(error)}` };
  }
  if (createHash('sha256').update(body).digest('hex') !== doc.sha256) {
    return { ok: false, code: 'file_changed', message: `${doc.displayPath} changed while the batch ran; run the command again to send the new content` };
  }
  if (!doc.sourcePages) return { ok: true, body };
  // Only the selected pages leave the machine; the journal and the result still name the source.
  const cut = await cutPdf(body, doc.sourcePages, doc.sourcePageCount ?? 0, doc.displayPath);
  if (!cut.ok) return cut;
  if (cut.bytes.length > SERVICE_LIMITS.maxFileBytes) {
    const megabytes = (cut.bytes.length / 1024 / 1024).toFixed(1);
    return {
      ok: false,
      code: 'file_too_large',
      message: `the cut of ${doc.displayPath} is ${megabytes} MB, over the service's 10 MB; choose fewer pages with --pages (nothing was sent)`,
    };
  }
  return { ok: true, body: cut.bytes };
}

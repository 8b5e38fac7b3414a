import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { lstat, open, realpath, stat } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { ACCEPTED_TYPES_TEXT, contentTypeFor, detectFileType, type AcceptedFileType } from './file-type.js';
import { SERVICE_LIMITS } from '../api/limits.js';
import { hasPdfBody, MAX_PAGES } from './pdf-page-count.js';
import { inspectPdfPages, tooComplexMessage } from './pdf-inspection.js';
import type { InspectionLimits } from './pdf/inspection-budget.js';
import { notUtf8Message, notUtf8PathOf, shownAs } from './raw-names.js';

type PreflightCode =
  | 'file_too_large'
  | 'invalid_file_type'
  | 'page_limit_exceeded'
  | 'invalid_file'
  | 'file_not_found'
  | 'file_unreadable'
  /** Counting its pages went past the inspection budget (bytes inflated, time): refused, not sent uncounted. */
  | 'pdf_too_complex'
  /** The caller aborted while the file was being checked: nothing is known about it. */
  | 'interrupted'
  /** A watched folder's file that is a link, or reached through one out of the folder. */
  | 'file_is_link'
  /** A name on the path is not valid UTF-8 (raw-names.ts): reported, never taken. */
  | 'name_not_utf8';

export interface PreflightOk {
  ok: true;
  path: string;
  size: number;
  /** Hex SHA-256 of the content: the file's identity for resume and de-duplication. */
  sha256: string;
  type: AcceptedFileType;
  contentType: string;
  /** Pages (1 for an image); undefined for a PDF we could not count, which is sent anyway and judged by the server. */
  pages: number | undefined;
  /** The service will split it (PDF of more than 3 pages, answered with 202). False when pages are unknown: the server's answer decides. */
  split: boolean;
}

interface PreflightRejected {
  ok: false;
  path: string;
  code: PreflightCode;
  /** Names the file and, where one applies, the limit it breaks. */
  message: string;
  size?: number;
  sha256?: string;
  pages?: number;
}

export type PreflightResult = PreflightOk | PreflightRejected;

/**
 * The service's "maximum 10 MB" (API v3.1 §4.1, §8), read as 10 MiB. The spec
 * does not say which; if the server meant 10,000,000 bytes, a file between the
 * two limits gets a 413 `file_too_large` from the server, which the client
 * handles like any other rejection, so the generous reading costs at most one
 * request and never refuses a file the server would take.
 */
export const MAX_FILE_BYTES = SERVICE_LIMITS.maxFileBytes;

/** PDFs of up to this many pages are extracted synchronously (API v3.1 §8, MP_ASYNC_THRESHOLD). */
const MAX_SYNC_PAGES = SERVICE_LIMITS.maxSyncPages;

export interface PreflightOptions {
  /** How to name the file in messages, e.g. the path as the user typed it. @default the path */
  displayName?: string;
  /**
   * Take a PDF past the service's limits (more than 150 pages, over 10 MB,
   * up to MAX_SOURCE_BYTES): it is cut into parts the service accepts, or
   * only some of its pages are sent (--pages); the caller checks what is
   * sent. An image over 10 MB is refused all the same. @default false
   */
  pastLimits?: boolean;
  /** What counting a PDF's pages may cost. @default DEFAULT_INSPECTION_LIMITS */
  inspectionLimits?: InspectionLimits;
  /** Stops the check of a file at once (a page count under way is ended): the answer is then `interrupted`. */
  signal?: AbortSignal;
  /**
   * A folder anyone may drop files into (a watched folder): a file that is a
   * symbolic link, or whose real folder is not inside this one, is refused
   * (`file_is_link`), and it is opened with O_NOFOLLOW so that a link swapped
   * in after the check is refused too. Whoever dropped a link may not be
   * able to read what it points at; this process may. @default links followed
   */
  confinedTo?: string;
  /** Lines for --debug: when a PDF's page count starts and how it ended (what a test waits on before it stops a run). */
  debug?: (line: string) => void;
}

/** The largest PDF read to be cut into parts (all of it is hashed and held while it is planned). */
const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/**
 * Checks a file locally against every limit the service enforces, so no
 * request is spent on a file the server would reject. Reads the file once
 * (at most 10 MiB), hashes and counts pages from that one buffer, and keeps
 * nothing. Never throws for a bad file: every problem is a typed rejection.
 */
export async function preflightFile(path: string, options: PreflightOptions = {}): Promise<PreflightResult> {
  const name = options.displayName ?? path;
  const reject = (code: PreflightCode, message: string, extra: Partial<PreflightRejected> = {}): PreflightRejected => ({
    ok: false,
    path,
    code,
    message,
    ...extra,
  });

  // Only a PDF can be cut into parts the service accepts.
  const limit = options.pastLimits === true ? MAX_SOURCE_BYTES : MAX_FILE_BYTES;
  const confinedTo = options.confinedTo;
  const flags = confinedTo === undefined ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NOFOLLOW;
  let bytes: Buffer;
  try {
    // stat before open: opening a FIFO would block until someone writes to it.
    const info = confinedTo === undefined ? await stat(path) : await lstat(path);
    if (info.isSymbolicLink()) return reject('file_is_link', linkMessage(name));
    if (confinedTo !== undefined && !(await isInside(dirname(path), confinedTo)))
      return reject('file_is_link', `${name} lies in a folder reached through a link out of ${confinedTo}; files there are not taken.`);
    if (!info.isFile()) return reject('invalid_file', `${name} is not a regular file.`);
    if (info.size > limit) return reject('file_too_large', tooLargeMessage(name, info.size, limit), { size: info.size });
    if (info.size > MAX_FILE_BYTES && !(await startsLikePdf(path, flags)))
      return reject('file_too_large', tooLargeMessage(name, info.size), { size: info.size });
    if (info.size === 0) return reject('invalid_file', `${name} is empty (0 bytes).`, { size: 0 });
    bytes = await readAtMost(path, limit + 1, flags);
  } catch (error) {
    // O_NOFOLLOW met a link put there after the lstat.
    if (confinedTo !== undefined && (error as NodeJS.ErrnoException | undefined)?.code === 'ELOOP') return reject('file_is_link', linkMessage(name));
    // A name Node could only decode with U+FFFD names no file: said as what it is, not as missing.
    const raw = (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? await notUtf8PathOf(path) : undefined;
    if (raw) return reject('name_not_utf8', notUtf8Message(shownAs(name, raw), 'file'));
    return fileSystemRejection(path, name, error);
  }
  const size = bytes.length;
  // The file may have changed since stat.
  if (size > limit) return reject('file_too_large', tooLargeMessage(name, size, limit), { size });
  if (size === 0) return reject('invalid_file', `${name} is empty (0 bytes).`, { size });

  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const type = detectFileType(bytes.subarray(0, 1024));
  if (type === undefined) {
    return reject('invalid_file_type', `${name} is not a ${ACCEPTED_TYPES_TEXT} file (judged by its content, not its name); the service accepts only those.`, {
      size,
      sha256,
    });
  }
  const ok = (pages: number | undefined): PreflightOk => ({
    ok: true,
    path,
    size,
    sha256,
    type,
    contentType: contentTypeFor(type),
    pages,
    // Stryker disable next-line ConditionalExpression: equivalent; undefined > n is false too (the test narrows the type).
    split: pages !== undefined && pages > MAX_SYNC_PAGES,
  });
  if (type !== 'pdf' && size > MAX_FILE_BYTES) return reject('file_too_large', tooLargeMessage(name, size), { size, sha256 });
  if (type !== 'pdf') return ok(1);

  // Read before the bytes are handed to the worker.
  const damage = truncationSign(bytes);
  // Handed over to a worker thread, bytes and all (nothing here reads them after).
  // The name is quoted: a file name is untrusted, and its control characters must not reach the terminal as they are.
  options.debug?.(`counting the pages of ${JSON.stringify(name)}`);
  const inspection = await inspectPdfPages(bytes, {
    transfer: true,
    ...(options.inspectionLimits ? { limits: options.inspectionLimits } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.debug?.(
    `${{ counted: 'counted', too_complex: 'gave up counting', aborted: 'stopped counting' }[inspection.kind]} the pages of ${JSON.stringify(name)}`,
  );
  if (inspection.kind === 'aborted') return reject('interrupted', `${name} was not checked: interrupted.`, { size, sha256 });
  // Past the budget the file is refused, not sent with its pages unknown: an uncounted PDF may be
  // split by the service (more than 3 pages) or be past its page limit, and credits follow the pages.
  // The dry run calls this same check, so it shows the same refusal.
  if (inspection.kind === 'too_complex')
    return reject('pdf_too_complex', tooComplexMessage(name, 'pages', inspection.budget, options.inspectionLimits), { size, sha256 });
  const { pages } = inspection;
  // A PDF we could not count is sent and judged by the server, unless it is plainly cut short: that
  // request would only buy a 400 invalid_file. Past 10 MB the limit is what the user must hear first.
  if (pages === undefined && damage !== undefined) {
    if (size > MAX_FILE_BYTES)
      return reject('file_too_large', `${overLimit(name, size)}, and this PDF cannot be cut into parts: it ${damage}; it looks truncated.`, { size, sha256 });
    return reject('invalid_file', `${name} starts like a PDF but ${damage}; it looks truncated.`, { size, sha256 });
  }
  // Stryker disable next-line ConditionalExpression: equivalent; undefined > n is false too (the test narrows the type).
  if (pages !== undefined && pages > MAX_PAGES && options.pastLimits !== true) {
    return reject('page_limit_exceeded', `${name} has ${pages} pages; the service accepts at most ${MAX_PAGES} pages per document.`, { size, sha256, pages });
  }
  return ok(pages);
}

/**
 * Why a PDF looks cut short, or undefined. Every complete PDF ends with
 * `%%EOF` (junk may follow it, so it is looked for anywhere); a download
 * interrupted part-way has none. Only asked of a PDF whose pages could not
 * be counted: a file we could count is whole enough for the service.
 */
function truncationSign(bytes: Uint8Array): string | undefined {
  if (!hasPdfBody(bytes)) return 'holds no PDF objects';
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('%%EOF'))
    return 'ends before its end marker (%%EOF), and its pages cannot be found';
  return undefined;
}

/** SHA-256 of a file's content as hex, streamed so any size is fine. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function linkMessage(name: string): string {
  return `${name} is a symbolic link; files dropped into a watched folder are taken only as themselves, never through a link (copy the file in instead).`;
}

/** Whether `folder`, links resolved, lies in `root` (links resolved too). */
async function isInside(folder: string, root: string): Promise<boolean> {
  const [real, realRoot] = await Promise.all([realpath(folder), realpath(root)]);
  return real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : `${realRoot}${sep}`);
}

/** Reads up to `limit` bytes, so a file that grows after stat cannot make us read gigabytes. */
async function readAtMost(path: string, limit: number, flags: number = constants.O_RDONLY): Promise<Buffer> {
  const handle = await open(path, flags);
  try {
    // Sized for the file as it is now, plus one byte to notice that it grew.
    const chunks: Buffer[] = [];
    let total = 0;
    let chunk = Buffer.alloc(Math.min(limit, (await handle.stat()).size + 1));
    while (total < limit) {
      let filled = 0;
      while (filled < chunk.length) {
        const { bytesRead } = await handle.read(chunk, filled, chunk.length - filled, total + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      chunks.push(chunk.subarray(0, filled));
      total += filled;
      if (filled < chunk.length) break;
      chunk = Buffer.alloc(Math.min(64 * 1024, limit - total));
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; concatenating one chunk gives the same bytes (the branch saves a copy).
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

function fileSystemRejection(path: string, name: string, error: unknown): PreflightRejected {
  // Stryker disable next-line OptionalChaining: equivalent; what fs throws is always an Error.
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return { ok: false, path, code: 'file_not_found', message: `${name} does not exist.` };
  }
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error));
  return { ok: false, path, code: 'file_unreadable', message: `${name} cannot be read (${reason}).` };
}

function tooLargeMessage(name: string, size: number, limit = MAX_FILE_BYTES): string {
  if (limit > MAX_FILE_BYTES)
    return `${name} is ${formatMegabytes(size)} (${size.toLocaleString('en-US')} bytes); docextract cuts PDFs of up to ${formatMegabytes(limit)} into parts the service accepts, and the service takes other files up to 10 MB.`;
  return `${overLimit(name, size)}.`;
}

/** The size against the service's 10 MB (413 `file_too_large`), without a full stop. */
function overLimit(name: string, size: number): string {
  return `${name} is ${formatMegabytes(size)} (${size.toLocaleString('en-US')} bytes); the service accepts files up to 10 MB (${MAX_FILE_BYTES.toLocaleString('en-US')} bytes)`;
}

/** Whether a file's first 1 KiB holds a PDF header (a file too large to send whole is read only if it can be cut). */
async function startsLikePdf(path: string, flags: number): Promise<boolean> {
  return detectFileType(await readAtMost(path, 1024, flags)) === 'pdf';
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Files read back from an output folder (results, the reviews beside them)
 * speak for the user: a result on disk is answered instead of paying, a
 * review's corrections are exported as the user's own. An output folder may
 * be shared (a 1777 `--out`), so such a file counts only when this user owns
 * it and no one else may write to it; else it is read as someone else's.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** The code of a result file this user does not own, or that others may write. */
export const RESULT_UNTRUSTED = 'result_untrusted';
/** The code of a review file beside a result that this user does not own, or that others may write. */
export const REVIEW_UNTRUSTED = 'review_untrusted';

/** 0 where the platform has no such flag (Windows). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/** Why `found` is not this user's own word, or undefined when it is (or when the platform has no owners and modes to judge by). */
export function distrustOf(found: Stats): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: ACLs, not modes
  if (found.uid !== uid) return `it belongs to another user (uid ${found.uid})`;
  if ((found.mode & 0o022) !== 0) return `others may write to it (mode ${(found.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

/** Thrown for a name that is no regular file (a FIFO, a device, a folder), or one past the size asked. */
export class NotARegularFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export interface RegularFileOptions {
  /** Refuse a symbolic link at the name itself (O_NOFOLLOW). @default false */
  noFollow?: boolean;
  /** Refuse a file larger than this many bytes, before reading it. @default no limit */
  maxBytes?: number;
}

/**
 * A regular file's text and what its descriptor says of it. Opened with
 * O_NONBLOCK (a FIFO never holds the open), judged by fstat on the very
 * descriptor that is read (no swap between the look and the read), and read
 * only when it is a regular file within `maxBytes` (`/dev/zero` is never
 * read). Anything else throws: NotARegularFileError, or the open's error.
 */
export async function readRegularFile(path: string, options: RegularFileOptions = {}): Promise<{ text: string; stats: Stats }> {
  const read = await readRegularFileIf(path, options, () => true);
  return read as { text: string; stats: Stats };
}

/** readRegularFile that reads the text only when `wanted` says so of the file's stats (else `text` is undefined). */
async function readRegularFileIf(path: string, options: RegularFileOptions, wanted: (stats: Stats) => boolean): Promise<{ text?: string; stats: Stats }> {
  const handle = await open(path, constants.O_RDONLY | NON_BLOCK | (options.noFollow ? NO_FOLLOW : 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotARegularFileError(path, 'not a regular file');
    if (options.maxBytes !== undefined && stats.size > options.maxBytes) {
      throw new NotARegularFileError(path, `larger than ${options.maxBytes} bytes (${stats.size})`);
    }
    return wanted(stats) ? { text: await handle.readFile('utf8'), stats } : { stats };
  } finally {
    await handle.close();
  }
}

/** A file of this user's, read; or why it is not theirs (`untrusted`, not read). */
export type OwnedRead = { kind: 'own'; text: string; stats: Stats } | { kind: 'untrusted'; reason: string };

/** `path` read as this user's own file (see distrustOf); undefined when it is missing, unreadable or no regular file. */
export async function readOwnedFile(path: string): Promise<OwnedRead | undefined> {
  return readOwnedFileOrThrow(path).catch(() => undefined);
}

/** {@link readOwnedFile} that throws why a file cannot be read (for a caller that reports it). */
export async function readOwnedFileOrThrow(path: string): Promise<OwnedRead> {
  const read = await readRegularFileIf(path, {}, (stats) => distrustOf(stats) === undefined);
  return read.text === undefined ? { kind: 'untrusted', reason: distrustOf(read.stats) ?? '' } : { kind: 'own', text: read.text, stats: read.stats };
}

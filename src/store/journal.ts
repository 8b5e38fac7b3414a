import { DocextractError } from '../util/docextract-error.js';
/**
 * Append-only NDJSON journal: one JSON object per line, each append made
 * durable (fdatasync) before it resolves, because an intent record must be on
 * disk before the request it announces is sent.
 */
import { mkdir, rm, truncate, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncFolder, writeFileAtomically } from './atomic-write.js';
import { hasErrorCode } from './fs-errors.js';
import { openPrivateFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, readPrivateFile } from './private-files.js';
import { refuseUnlessPrivateNow } from './state-dir-check.js';

/** A line in the middle of the journal is not a record: the file was damaged by something other than a crash mid-append. */
export class JournalCorruptError extends DocextractError {
  /** Always `'JournalCorruptError'`. */
  override readonly name = 'JournalCorruptError';
  /** Always `journal_corrupt`. */
  readonly code = 'journal_corrupt';
  constructor(
    /** The journal file. */
    readonly path: string,
    /** 1-based. */
    readonly line: number,
  ) {
    super(`Journal ${path} is damaged at line ${line}: not a JSON record, and more records follow it`);
  }
}

export class Journal<T extends { type: string }> {
  private readonly items: T[];
  /** Bytes of whole records on disk; a failed append is cut back to this. */
  private size: number;
  private handle: FileHandle | undefined;
  /** Appends and compactions run one at a time, so lines never interleave and records keep file order. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    handle: FileHandle,
    items: T[],
    size: number,
  ) {
    this.handle = handle;
    this.items = items;
    this.size = size;
  }

  /**
   * Open (creating folders and file as needed) and read every record. A torn
   * tail — a last line cut short by kill -9, or zero bytes left by an OS crash —
   * is ignored and truncated away, so the next append starts on a clean line.
   */
  static async open<T extends { type: string }>(path: string): Promise<Journal<T>> {
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    let text: string | undefined;
    try {
      text = await readPrivateFile(path);
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
    }
    // Stryker disable next-line StringLiteral: equivalent; any text without a newline is a torn tail of no record, as nothing is.
    const { records, validBytes } = parseJournal<T>(text ?? '', path);
    const torn = validBytes < Buffer.byteLength(text ?? '');
    if (torn) await truncate(path, validBytes);
    const handle = await openPrivateFile(path, 'a');
    if (torn) await handle.datasync();
    // A new file's name must be durable too, or its first intent could vanish with it.
    if (text === undefined) await syncFolder(dirname(path));
    const journal = new Journal<T>(path, handle, records, validBytes);
    journal.createdHere = text === undefined;
    return journal;
  }

  /** This open made the file (there was none): only such a file may be removed again, empty, at close. */
  private createdHere = false;

  /** Everything read at open plus everything appended since, in file order. */
  get records(): readonly T[] {
    return this.items;
  }

  /** Write the record's line and fdatasync before resolving. */
  append(record: T): Promise<void> {
    return this.appendMany([record]);
  }

  /** Several records, one write and one fdatasync. */
  appendMany(records: T[]): Promise<void> {
    const text = records.map(toLine).join('');
    return this.serialize(async () => {
      const handle = this.openHandle();
      try {
        await handle.writeFile(text);
        await handle.datasync();
      } catch (error) {
        // A half-written line would glue itself to the next append; cut it off.
        await handle.truncate(this.size).catch(() => undefined);
        throw error;
      }
      this.size += Buffer.byteLength(text);
      this.items.push(...records);
    });
  }

  /** Atomically rewrite the journal with only `keep` (once jobs are finished). */
  compact(keep: T[]): Promise<void> {
    return this.compactWith(() => keep);
  }

  /**
   * Atomically rewrite the journal with the records `select` keeps, chosen
   * when the rewrite runs: after every append queued before it, so that a
   * journal still being appended to (a long `watch`) loses none of them.
   */
  compactWith(select: (records: readonly T[]) => T[]): Promise<void> {
    return this.serialize(async () => {
      // The rewrite goes by path: a folder swapped since the run began is refused, not written into.
      refuseUnlessPrivateNow(dirname(this.path));
      const keep = select(this.items);
      const text = keep.map(toLine).join('');
      const old = this.openHandle();
      await writeFileAtomically(this.path, text, { mode: PRIVATE_FILE_MODE });
      // The rename replaced the file; the old handle would append to the
      // orphaned inode, so it goes now. Should reopening fail, the journal is
      // closed (appends throw) rather than silently writing nowhere.
      this.handle = undefined;
      this.size = Buffer.byteLength(text);
      this.items.splice(0, this.items.length, ...keep);
      await old.close().catch(() => undefined);
      this.handle = await openPrivateFile(this.path, 'a');
    });
  }

  /**
   * Close the file. `removeIfEmpty`: a journal this open created and that
   * holds no record (nothing was ever sent, as under a refused key, or all
   * of it finished and was compacted away) is removed rather than left
   * behind as an empty file; the next open makes it again. One that was
   * there before stays. Only for the holder of the state lock.
   */
  close(options: { removeIfEmpty?: boolean } = {}): Promise<void> {
    return this.serialize(async () => {
      const handle = this.handle;
      this.handle = undefined;
      await handle?.close();
      if (options.removeIfEmpty === true && this.createdHere && this.items.length === 0 && this.size === 0) await rm(this.path, { force: true });
    });
  }

  private openHandle(): FileHandle {
    if (!this.handle) throw new Error(`Journal ${this.path} is closed`);
    return this.handle;
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function toLine(record: { type: string }): string {
  // JSON.stringify escapes newlines inside strings, so a record is one line.
  return `${JSON.stringify(record)}\n`;
}

function parseJournal<T extends { type: string }>(text: string, path: string): { records: T[]; validBytes: number } {
  const records: T[] = [];
  let bytesRead = 0;
  let validBytes = 0;
  let offset = 0;
  let lineNo = 0;
  let badLine: number | undefined;
  while (offset < text.length) {
    lineNo++;
    const end = text.indexOf('\n', offset);
    // A segment without its newline never completed its write.
    const complete = end !== -1;
    const line = text.slice(offset, complete ? end : text.length);
    offset = complete ? end + 1 : text.length;
    bytesRead += Buffer.byteLength(line) + (complete ? 1 : 0);
    if (complete && line.trim() === '') continue;
    const record = complete ? parseRecord<T>(line) : undefined;
    if (record === undefined) {
      badLine ??= lineNo;
      continue;
    }
    // Damage followed by good records is not a torn tail; dropping it silently could lose an intent.
    if (badLine !== undefined) throw new JournalCorruptError(path, badLine);
    records.push(record);
    validBytes = bytesRead;
  }
  return { records, validBytes };
}

function parseRecord<T extends { type: string }>(line: string): T | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string') {
      return value as T;
    }
  } catch {
    // not JSON: reported by the caller as torn or damaged
  }
  return undefined;
}

import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hash53 as hashOf } from '../util/hash53.js';
import { reserveTempPath, syncFolder } from './atomic-write.js';
import { hasErrorCode } from './fs-errors.js';
import { appendPrivateFile, openPrivateFile, PRIVATE_FILE_MODE } from './private-files.js';

export interface ResultsIndexOptions {
  /** Entries kept (the oldest go first). @default 100_000 */
  capacity?: number;
}

/** One line of the index file. */
type IndexLine = { k: string; p: string | null } | { scanned: string };

/** Rewrite the file when it holds this many times more lines than live entries. */
const COMPACT_RATIO = 2;

/** Bytes read at a line's offset first; a longer line (a very long path) is read again whole. */
const FIRST_READ_BYTES = 512;

/**
 * Where a result file for each key (a question) was last written: a bounded
 * map persisted as an append-only NDJSON file in the state folder. It is a
 * cache, never the truth: every entry is checked against the result file it
 * names before use, it is rebuilt from the result files of a folder it has
 * not scanned, and a lost line costs at most one extraction. So appends are
 * not fsynced. (A database would do, but none of the well-kept embedded ones
 * is both pure JavaScript and bounded in memory; these are a few dozen lines.)
 *
 * Memory: only a 53-bit hash of each key and the offset of its newest line
 * are held (~55 bytes an entry, against ~260 for the key and path strings),
 * and a lookup reads its line back from the file. The line names its key,
 * so two keys with the same hash (about one in 10^6 at 100,000 entries)
 * cost a lookup that misses, never a wrong answer.
 */
export class ResultsIndex {
  /** Offset of each key's newest line, by hash of the key; oldest write first (a Map keeps insertion order). */
  private offsets = new Map<number, number>();
  private readonly scanned = new Set<string>();
  private lines = 0;
  /** The file's length as this index read and wrote it: where the next line starts. */
  private bytes = 0;
  /** The file ends in a line cut short (a crash mid-append): the next line starts on a line of its own. */
  private endsMidLine = false;
  /** Appends and the rewrite run one at a time, so each line lands at the offset counted for it. */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly capacity: number,
  ) {}

  static async open(path: string, options: ResultsIndexOptions = {}): Promise<ResultsIndex> {
    const index = new ResultsIndex(path, options.capacity ?? 100_000);
    await index.load();
    return index;
  }

  get size(): number {
    return this.offsets.size;
  }

  async get(key: string): Promise<string | undefined> {
    const line = await this.lineOf(key);
    return line?.p ?? undefined;
  }

  /** Whether the result files under `folder` were read into the index. */
  hasScanned(folder: string): boolean {
    return this.scanned.has(folder);
  }

  set(key: string, resultPath: string): Promise<void> {
    return this.serially(async () => {
      if ((await this.lineOf(key))?.p === resultPath) return;
      const offset = await this.append({ k: key, p: resultPath });
      this.remember(hashOf(key), offset);
    });
  }

  forget(key: string): Promise<void> {
    return this.serially(async () => {
      if ((await this.lineOf(key)) === undefined) return;
      this.offsets.delete(hashOf(key));
      await this.append({ k: key, p: null });
    });
  }

  markScanned(folder: string): Promise<void> {
    return this.serially(async () => {
      if (this.scanned.has(folder)) return;
      this.scanned.add(folder);
      await this.append({ scanned: folder });
    });
  }

  /**
   * Rewrite the file with only the live entries, when dead lines dominate it.
   * The file is streamed, never held: a live line is the one its key's offset
   * points at, and the file's order is the order of the newest writes.
   */
  compact(): Promise<void> {
    return this.serially(async () => {
      const live = this.offsets.size + this.scanned.size;
      if (this.lines <= COMPACT_RATIO * live + 1_000) return;
      const temp = reserveTempPath(this.path);
      const next = new Map<number, number>();
      let written = 0;
      try {
        const out = await open(temp.path, 'wx', PRIVATE_FILE_MODE);
        const write = async (text: string): Promise<void> => {
          const bytes = Buffer.from(`${text}\n`);
          await out.write(bytes);
          written += bytes.length;
        };
        try {
          for (const folder of this.scanned) await write(JSON.stringify({ scanned: folder }));
          for await (const { offset, text } of linesOf(this.path)) {
            const line = parseLine(text);
            if (line === undefined || 'scanned' in line || line.p === null) continue;
            const hash = hashOf(line.k);
            if (this.offsets.get(hash) !== offset) continue;
            next.set(hash, written);
            await write(text);
          }
          await out.sync();
        } finally {
          await out.close();
        }
        await rename(temp.path, this.path);
      } catch (error) {
        await rm(temp.path, { force: true }).catch(() => undefined);
        throw error;
      } finally {
        temp.release();
      }
      await syncFolder(dirname(this.path));
      this.offsets = next;
      this.lines = next.size + this.scanned.size;
      this.bytes = written;
      this.endsMidLine = false;
    });
  }

  /**
   * Remove the file when it names no result: nothing in it can answer a
   * question, and a run that never got going (a refused key) would otherwise
   * leave one such file per key tried. Its folder marks cost only a rescan.
   */
  removeIfNoResult(): Promise<void> {
    return this.serially(async () => {
      if (this.offsets.size > 0) return;
      await rm(this.path, { force: true });
      this.scanned.clear();
      this.lines = 0;
      this.bytes = 0;
      this.endsMidLine = false;
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const done = this.writes.then(work);
    this.writes = done.catch(() => undefined);
    return done;
  }

  /** The newest line written for `key`, if the index holds one. */
  private async lineOf(key: string): Promise<{ k: string; p: string } | undefined> {
    const offset = this.offsets.get(hashOf(key));
    if (offset === undefined) return undefined;
    const line = parseLine(await readLineAt(this.path, offset));
    // Another key with the same hash, or a file changed under us: a miss.
    return line !== undefined && 'k' in line && line.k === key && line.p !== null ? { k: line.k, p: line.p } : undefined;
  }

  private remember(hash: number, offset: number): void {
    // Re-inserting moves the key to the newest end; the oldest end is evicted.
    this.offsets.delete(hash);
    this.offsets.set(hash, offset);
    if (this.offsets.size > this.capacity) {
      const oldest = this.offsets.keys().next().value;
      // Stryker disable next-line ConditionalExpression: equivalent; a map over capacity has an oldest key (the check is for the type).
      if (oldest !== undefined) this.offsets.delete(oldest);
    }
  }

  /** Appends one line; returns the offset it starts at. */
  private async append(line: IndexLine): Promise<number> {
    const separator = this.endsMidLine ? '\n' : '';
    const bytes = Buffer.from(`${separator}${JSON.stringify(line)}\n`);
    await appendPrivateFile(this.path, bytes);
    const offset = this.bytes + separator.length;
    this.bytes += bytes.length;
    this.endsMidLine = false;
    this.lines += 1;
    return offset;
  }

  private async load(): Promise<void> {
    try {
      for await (const { offset, text, end, ended } of linesOf(this.path)) {
        this.lines += 1;
        this.bytes = end;
        this.endsMidLine = !ended;
        const line = parseLine(text);
        if (line === undefined) continue;
        if ('scanned' in line) this.scanned.add(line.scanned);
        else if (line.p === null) this.offsets.delete(hashOf(line.k));
        else this.remember(hashOf(line.k), offset);
      }
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
    }
  }
}

/**
 * The file's lines with the byte offset each starts at and ends after (its
 * newline included), read as a stream. A last line without a newline (cut
 * short by a crash) is yielded too; it will not parse.
 */
async function* linesOf(path: string): AsyncGenerator<{ offset: number; end: number; text: string; ended: boolean }> {
  // Opened without following a link: the index is in the state folder.
  const handle = await openPrivateFile(path, 'r');
  try {
    yield* linesOfStream(handle.createReadStream({ autoClose: false }));
  } finally {
    await handle.close();
  }
}

async function* linesOfStream(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ offset: number; end: number; text: string; ended: boolean }> {
  let pending: Buffer = Buffer.alloc(0);
  let start = 0;
  for await (const chunk of chunks) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let from = 0;
    for (let newline = pending.indexOf(0x0a, from); newline !== -1; newline = pending.indexOf(0x0a, from)) {
      yield { offset: start, end: start + newline - from + 1, text: pending.toString('utf8', from, newline), ended: true };
      start += newline - from + 1;
      from = newline + 1;
    }
    pending = pending.subarray(from);
  }
  if (pending.length > 0) yield { offset: start, end: start + pending.length, text: pending.toString('utf8'), ended: false };
}

/** The line starting at `offset`, without its newline ('' past the end or when the file is gone). */
async function readLineAt(path: string, offset: number): Promise<string> {
  let handle;
  try {
    handle = await openPrivateFile(path, 'r');
  } catch {
    return '';
  }
  try {
    for (let length = FIRST_READ_BYTES; ; length *= 4) {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      if (newline !== -1) return buffer.toString('utf8', 0, newline);
      if (bytesRead < length) return buffer.toString('utf8', 0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** A line cut short by a crash, or anything else unreadable, is skipped: the index is only a cache. */
function parseLine(text: string): IndexLine | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.scanned === 'string') return { scanned: value.scanned };
    if (typeof value.k === 'string' && (typeof value.p === 'string' || value.p === null)) return { k: value.k, p: value.p };
  } catch {
    // fall through
  }
  return undefined;
}

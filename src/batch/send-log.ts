/**
 * Persisted send times, so that a restarted run does not burst past a window
 * its predecessor already filled.
 */
import { closeSync, mkdirSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../util/clock.js';
import { writeFileAtomicallySync } from '../store/atomic-write.js';
import { hasErrorCode } from '../store/fs-errors.js';
import { moveLine, parseSendLog, sendLine } from './send-log-lines.js';
import { appendPrivateFileSync, openPrivateFileSync, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, readPrivateFileSync } from '../store/private-files.js';

export interface SendLog {
  /** Send times still relevant (younger than the longest window), ascending, each request once. */
  load(): number[];
  append(atMs: number): void;
  /** The send recorded at `fromMs` was counted at `toMs`: readers see it there, once. */
  move(fromMs: number, toMs: number): void;
  /** The send recorded at `atMs` never reached the server: readers no longer count it. */
  drop(atMs: number): void;
}

export interface FileSendLogOptions {
  /** How long an entry matters: the longest rate window. */
  keepMs: number;
  clock: Clock;
}

/** Entries dropped at load before the file is worth rewriting. */
const COMPACT_AFTER_DROPPED = 64;

/** Lines written by this process before it reads the file again to compact it (and at least as many as it kept). */
const RECHECK_AFTER_LINES = 4_096;

/**
 * One line per send, append-only (send-log-lines.ts): a send moved or
 * forgotten later gets a line replacing it, so every reader counts each
 * request once. Compaction folds the replacements in: at load, and during a
 * long run once it has written as many lines again as it kept.
 *
 * Appends use appendFileSync WITHOUT fsync: the page cache survives kill -9,
 * which is the restart this log exists for; an OS crash may lose the last few
 * sends, which only makes the next run slightly optimistic, and the server's
 * X-RateLimit-* headers tighten the gate again. An fsync per request would
 * cost more than the protection is worth.
 */
export class FileSendLog implements SendLog {
  private checkedTail = false;
  /** Lines written since the file was last read, and when to read (and maybe compact) it again. */
  private written = 0;
  private recheckAt = RECHECK_AFTER_LINES;

  constructor(
    readonly path: string,
    private readonly opts: FileSendLogOptions,
  ) {}

  /**
   * Read, drop entries older than keepMs (and any torn or garbled line), and
   * rewrite the file compactly and atomically when enough was dropped or its
   * last line was torn.
   */
  load(): number[] {
    let text: string;
    try {
      text = readPrivateFileSync(this.path);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return [];
      throw error;
    }
    const now = this.opts.clock.now();
    const oldest = now - this.opts.keepMs;
    // A clock that jumped back leaves entries slightly in the future; keep
    // them (they are real sends), but a number beyond now + keepMs is garbage.
    const newest = now + this.opts.keepMs;
    const content = parseSendLog(text);
    const kept = content.times.filter((at) => at > oldest && at <= newest);
    const dropped = content.superseded + content.times.length - kept.length;
    if (content.torn || dropped >= COMPACT_AFTER_DROPPED) {
      writeFileAtomicallySync(this.path, kept.map(sendLine).join(''), { mode: PRIVATE_FILE_MODE });
    }
    this.checkedTail = true;
    this.written = 0;
    this.recheckAt = Math.max(RECHECK_AFTER_LINES, kept.length);
    return kept;
  }

  append(atMs: number): void {
    this.write(sendLine(atMs));
  }

  move(fromMs: number, toMs: number): void {
    this.write(moveLine(fromMs, toMs));
  }

  drop(atMs: number): void {
    this.write(moveLine(atMs, undefined));
  }

  private write(line: string): void {
    if (!this.checkedTail) this.prepareForAppend();
    appendPrivateFileSync(this.path, line);
    // A run that goes on for days (a watch) compacts as it goes: the file stays within a few times what the windows hold.
    if (++this.written >= this.recheckAt) this.load();
  }

  /** Before the first append without a load: create folders, and never glue onto a torn line. */
  private prepareForAppend(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: PRIVATE_DIR_MODE });
    this.checkedTail = true;
    let size = 0;
    try {
      size = statSync(this.path).size;
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return;
      throw error;
    }
    if (size === 0) return;
    const fd = openPrivateFileSync(this.path, 'r');
    try {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) appendPrivateFileSync(this.path, '\n');
    } finally {
      closeSync(fd);
    }
  }
}

/** A SendLog that forgets on exit, for tests and `--no-state` runs. */
export class MemorySendLog implements SendLog {
  private readonly entries: number[];

  constructor(initial: readonly number[] = []) {
    this.entries = [...initial];
  }

  load(): number[] {
    return [...this.entries].sort((a, b) => a - b);
  }

  append(atMs: number): void {
    this.entries.push(atMs);
  }

  move(fromMs: number, toMs: number): void {
    this.drop(fromMs);
    this.entries.push(toMs);
  }

  drop(atMs: number): void {
    const index = this.entries.lastIndexOf(atMs);
    if (index !== -1) this.entries.splice(index, 1);
  }
}

/**
 * The send times a log holds, each request once, read only (FileSendLog.load may rewrite the
 * file, which only the run holding the state folder may do): for reports
 * of how full the windows are. A missing log is no sends.
 */
export function readSendTimes(path: string): number[] {
  let text: string;
  try {
    text = readPrivateFileSync(path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return [];
    throw error;
  }
  return parseSendLog(text).times.filter((at) => at > 0);
}

/** Where the send log of an account lives in the state folder. */
export function sendLogPath(stateDir: string, account: string): string {
  return join(stateDir, `sends-${account}.log`);
}

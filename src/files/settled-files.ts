import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Clock } from '../util/clock.js';
import { hasSupportedExtension, isHiddenName } from './paths.js';

/** What two looks at a file compare: unchanged size and mtime mean nobody wrote in between. */
export interface FileLook {
  size: number;
  mtimeMs: number;
}

export interface SettledFilesOptions {
  clock: Clock;
  /** How long a file's size and mtime must stay the same before it is taken. @default 2000 */
  settleMs?: number;
  /** Called once for each file that has settled (and again if it is later rewritten and settles anew). */
  onSettled: (path: string, look: FileLook) => void;
  /** Called when the number of files settling changes. */
  onSettling?: (count: number) => void;
  /** @default fs.promises.stat */
  look?: (path: string) => Promise<FileLook | undefined>;
}

/**
 * Names that are never documents to take: hidden files (`.DS_Store`, editors'
 * swap files), the partial downloads of browsers and mail clients (`*.part`,
 * `*.crdownload`, `*.tmp`, which are renamed to their final name when done),
 * Office lock files (`~$report.docx`) and Windows thumbnail caches.
 */
export function isTemporaryOrHiddenName(name: string): boolean {
  const lower = name.toLowerCase();
  return isHiddenName(name) || name.startsWith('~$') || lower === 'thumbs.db' || /\.(part|crdownload|tmp)$/.test(lower);
}

/** A file a hot folder may take: a document's extension, and no temporary or hidden name. */
export function isCandidateFile(path: string): boolean {
  return hasSupportedExtension(path) && !isTemporaryOrHiddenName(basename(path));
}

interface Watched {
  look: FileLook;
  /** When `look` was last seen to change (on the clock). */
  since: number;
  /** Taken with this look: unchanged, it is not taken again. */
  taken?: FileLook;
}

/**
 * Decides when a file that is being written is complete: its size and mtime
 * unchanged for the settle time, measured on the injected clock, so tests move
 * time by hand. chokidar's `awaitWriteFinish` does the same on real timers
 * (setTimeout polling), which a fake clock cannot drive; hence this.
 *
 * A look records the clock *after* its stat returned, and a check reads the
 * clock *before* its stat is issued: two equal looks then bracket the whole
 * settle time even when the file system answers late. Scanners that pause
 * between pages stay unsettled as long as each pause is shorter than the
 * settle time. A file taken and later rewritten settles again (a new
 * question: its sha256 differs); a file whose look did not change is not
 * taken twice.
 */
export class SettledFiles {
  private readonly clock: Clock;
  private readonly settleMs: number;
  private readonly onSettled: SettledFilesOptions['onSettled'];
  private readonly onSettling: (count: number) => void;
  private readonly look: (path: string) => Promise<FileLook | undefined>;
  private readonly files = new Map<string, Watched>();
  /** Files not yet taken (their look is being watched). */
  private readonly pending = new Set<string>();
  private wake?: () => void;
  private isClosed = false;

  constructor(options: SettledFilesOptions) {
    this.clock = options.clock;
    this.settleMs = options.settleMs ?? 2000;
    this.onSettled = options.onSettled;
    this.onSettling = options.onSettling ?? (() => undefined);
    this.look = options.look ?? lookAt;
  }

  /** Files seen but not settled yet. */
  get settling(): number {
    return this.pending.size;
  }

  /** A file appeared or changed: look at it now, and again once the settle time has passed. */
  async seen(path: string): Promise<void> {
    const look = await this.look(path);
    if (!look) {
      this.gone(path);
      return;
    }
    this.observed(path, look);
  }

  /**
   * A file as a pass over the folder found it (its look already taken): new
   * or changed, it starts settling; known and unchanged, nothing happens.
   */
  observed(path: string, look: FileLook): void {
    const now = this.clock.now();
    const known = this.files.get(path);
    if (known && sameLook(known.look, look)) return; // an event that changed nothing (or one we saw already)
    this.files.set(path, { look, since: now, ...(known?.taken ? { taken: known.taken } : {}) });
    if (known?.taken && sameLook(known.taken, look)) return;
    this.pending.add(path);
    this.onSettling(this.pending.size);
    this.wake?.();
  }

  /** Paths known (settling, or taken and unchanged since). */
  knownPaths(): IterableIterator<string> {
    return this.files.keys();
  }

  /** Something happened to a path (an unfiltered event): look again if it is a file being watched. */
  async touched(path: string): Promise<void> {
    if (this.files.has(path)) await this.seen(path);
  }

  /** The file was removed or renamed away. */
  gone(path: string): void {
    this.files.delete(path);
    if (this.pending.delete(path)) this.onSettling(this.pending.size);
  }

  /**
   * Checks due files until `close`: sleeps on the clock until the earliest one
   * is due (or a new one arrives), then looks again at each due file.
   */
  async run(): Promise<void> {
    while (!this.isClosed) {
      const due = this.nextDueAt();
      const woken = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      const timer = new AbortController();
      // Each turn races only promises of its own: a race against one long-lived promise would keep a reaction per turn.
      const waits: Promise<unknown>[] = [woken];
      // No timer while nothing is settling: a fake clock then has nothing to jump to.
      if (due !== undefined) waits.push(this.clock.sleep(Math.max(0, due - this.clock.now()), timer.signal).catch(() => undefined));
      await Promise.race(waits);
      timer.abort();
      this.wake = undefined;
      if (!this.isClosed) await this.checkDue();
    }
  }

  close(): void {
    this.isClosed = true;
    this.wake?.();
  }

  private nextDueAt(): number | undefined {
    let due: number | undefined;
    for (const path of this.pending) {
      const at = (this.files.get(path)?.since ?? 0) + this.settleMs;
      due = due === undefined ? at : Math.min(due, at);
    }
    return due;
  }

  private async checkDue(): Promise<void> {
    const now = this.clock.now();
    const due = [...this.pending].filter((path) => now - (this.files.get(path)?.since ?? now) >= this.settleMs);
    await Promise.all(due.map((path) => this.recheck(path, now)));
  }

  private async recheck(path: string, checkedAt: number): Promise<void> {
    const look = await this.look(path);
    const known = this.files.get(path);
    if (!known || !this.pending.has(path)) return; // gone, or taken, while we looked
    if (!look) {
      this.gone(path);
      return;
    }
    if (!sameLook(known.look, look) || checkedAt - known.since < this.settleMs) {
      this.files.set(path, { ...known, look, since: this.clock.now() });
      return;
    }
    this.pending.delete(path);
    this.onSettling(this.pending.size);
    known.taken = look;
    this.onSettled(path, look);
  }
}

function sameLook(a: FileLook, b: FileLook): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}

async function lookAt(path: string): Promise<FileLook | undefined> {
  try {
    const stats = await stat(path);
    return stats.isFile() ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
  } catch {
    return undefined; // gone (renamed away, deleted) or unreadable: nothing to take
  }
}

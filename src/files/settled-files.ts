import { basename } from 'node:path';
import type { Clock } from '../util/clock.js';
import { hash53 } from '../util/hash53.js';
import { HashedRecords } from '../util/hashed-records.js';
import { hasSupportedExtension, isHiddenName } from './paths.js';
import { lstatAnyName } from './raw-names.js';
import { settingDefault } from '../config/settings.js';

/** How long a file must stay unchanged before it is taken: the settings table's `settle` (watch --settle). */
export const DEFAULT_SETTLE_MS: number = settingDefault('settle');

/** What two looks at a file compare: unchanged size and mtime mean nobody wrote in between. */
export interface FileLook {
  size: number;
  mtimeMs: number;
}

export interface SettledFilesOptions {
  clock: Clock;
  /** How long a file's size and mtime must stay the same before it is taken. @default setting `settle` */
  settleMs?: number;
  /** Called once for each file that has settled (and again if it is later rewritten and settles anew). */
  onSettled: (path: string, look: FileLook) => void;
  /** Called when the number of files settling changes. */
  onSettling?: (count: number) => void;
  /** @default lstat (a link is looked at as itself; a name that is not UTF-8, by its bytes) */
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

/** The columns of a taken file's entry. */
const SIZE = 0;
const MTIME = 1;
const MARK = 2;

interface Settling {
  look: FileLook;
  /** When `look` was last seen to change (on the clock). */
  since: number;
  /** The mark of the last pass that saw it. */
  mark: number;
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
  /** Files not yet taken, whose look is being watched. */
  private readonly pending = new Map<string, Settling>();
  /**
   * Files taken and unchanged since (a rewrite, and only a rewrite, makes
   * them settle again): by a hash of the path, the size and mtime taken and
   * the mark of the last pass that saw the file. ~40 bytes a file, where a
   * Map of paths held ~390: a watched folder may hold 100,000. Two paths that
   * share a hash share an entry: the second file looks changed and is taken
   * once more (its answer is reused, not paid again), about once in 10^6
   * folders of 100,000.
   */
  private readonly taken = new HashedRecords(3);
  /** The mark of the pass over the whole folder under way (or the last one): what it does not see is gone. */
  private mark = 0;
  private wake?: () => void;
  private isClosed = false;

  constructor(options: SettledFilesOptions) {
    this.clock = options.clock;
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.onSettled = options.onSettled;
    this.onSettling = options.onSettling ?? (() => undefined);
    this.look = options.look ?? lookAt;
  }

  /** Files seen but not settled yet. */
  get settling(): number {
    return this.pending.size;
  }

  /** Files taken and unchanged since. */
  get takenCount(): number {
    return this.taken.size;
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
   * A file as a pass over the folder or an event found it (its look already
   * taken): new or changed, it starts settling; taken and unchanged, nothing
   * happens.
   */
  observed(path: string, look: FileLook): void {
    const settling = this.pending.get(path);
    if (settling) {
      settling.mark = this.mark;
      if (sameLook(settling.look, look)) return; // an event that changed nothing (or one we saw already)
      if (this.wasTaken(hash53(path), look)) {
        this.pending.delete(path); // changed back to what was taken
        this.onSettling(this.pending.size);
        return;
      }
      settling.look = look;
      settling.since = this.clock.now();
      return;
    }
    const hash = hash53(path);
    this.taken.setColumn(hash, MARK, this.mark);
    if (this.wasTaken(hash, look)) return;
    this.pending.set(path, { look, since: this.clock.now(), mark: this.mark });
    this.onSettling(this.pending.size);
    this.wake?.();
  }

  /** A pass over the whole folder starts: what it will not see (nor any event until it ends) is gone. */
  passStarted(): void {
    this.mark = (this.mark + 1) & 0xff;
  }

  /**
   * The pass over the whole folder ended. When it read every folder, files
   * taken that it did not see are forgotten (removed or renamed while
   * events were missed: the folder holds only what it saw), and files
   * settling that it did not see are looked at again (forgotten once gone).
   * A pass that could not read a folder forgets nothing: its files may well
   * be there.
   */
  async passEnded(readEveryFolder: boolean): Promise<void> {
    if (!readEveryFolder) return;
    this.taken.retain((taken) => taken[MARK] === this.mark);
    const unseen = [...this.pending].filter(([, settling]) => settling.mark !== this.mark).map(([path]) => path);
    await Promise.all(unseen.map((path) => this.seen(path)));
  }

  /** The file was removed or renamed away. */
  gone(path: string): void {
    this.taken.delete(hash53(path));
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

  /** Taken with exactly this look. */
  private wasTaken(hash: number, look: FileLook): boolean {
    const slot = this.taken.find(hash);
    return slot >= 0 && this.taken.at(slot, SIZE) === look.size && this.taken.at(slot, MTIME) === look.mtimeMs;
  }

  private nextDueAt(): number | undefined {
    let due: number | undefined;
    for (const settling of this.pending.values()) {
      const at = settling.since + this.settleMs;
      due = due === undefined ? at : Math.min(due, at);
    }
    return due;
  }

  private async checkDue(): Promise<void> {
    const now = this.clock.now();
    // Looked at all at once, then taken in name order: files that settle together are sent in the same
    // order on every run, not in the order their looks happened to come back (a budget that admits one
    // file and not the next must not decide by a race).
    const due = [...this.pending]
      .filter(([, settling]) => now - settling.since >= this.settleMs)
      .map(([path]) => path)
      .sort();
    const looks = await Promise.all(due.map((path) => this.look(path)));
    due.forEach((path, index) => this.recheck(path, looks[index], now));
  }

  private recheck(path: string, look: FileLook | undefined, checkedAt: number): void {
    const settling = this.pending.get(path);
    if (!settling) return; // gone, or taken, while we looked
    if (!look) {
      this.gone(path);
      return;
    }
    if (!sameLook(settling.look, look) || checkedAt - settling.since < this.settleMs) {
      settling.look = look;
      settling.since = this.clock.now();
      return;
    }
    this.pending.delete(path);
    this.onSettling(this.pending.size);
    this.taken.set(hash53(path), [look.size, look.mtimeMs, settling.mark]);
    this.onSettled(path, look);
  }
}

function sameLook(a: FileLook, b: FileLook): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}

async function lookAt(path: string): Promise<FileLook | undefined> {
  try {
    // A link settles as itself (never followed, whatever it points at), to be refused by name (file_is_link),
    // and a name that is not UTF-8 settles by its bytes, to be refused as such (name_not_utf8).
    const stats = await lstatAnyName(path);
    return stats.isFile() || stats.isSymbolicLink() ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
  } catch {
    return undefined; // gone (renamed away, deleted) or unreadable: nothing to take
  }
}

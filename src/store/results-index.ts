import { createReadStream } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { writeFileAtomically } from './atomic-write.js';

export interface ResultsIndexOptions {
  /** Entries kept (the oldest go first). @default 100_000 */
  capacity?: number;
}

/** One line of the index file. */
type IndexLine = { k: string; p: string | null } | { scanned: string };

/** Rewrite the file when it holds this many times more lines than live entries. */
const COMPACT_RATIO = 2;

/**
 * Where a result file for each key (a question) was last written: a bounded
 * map persisted as an append-only NDJSON file in the state folder. It is a
 * cache, never the truth: every entry is checked against the result file it
 * names before use, it is rebuilt from the result files of a folder it has
 * not scanned, and a lost line costs at most one extraction. So appends are
 * not fsynced. (A database would do, but none of the well-kept embedded ones
 * is both pure JavaScript and bounded in memory; these are a few dozen lines.)
 */
export class ResultsIndex {
  private readonly entries = new Map<string, string>();
  private readonly scanned = new Set<string>();
  private lines = 0;

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
    return this.entries.size;
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  /** Whether the result files under `folder` were read into the index. */
  hasScanned(folder: string): boolean {
    return this.scanned.has(folder);
  }

  async set(key: string, resultPath: string): Promise<void> {
    if (this.entries.get(key) === resultPath) return;
    this.remember(key, resultPath);
    await this.append({ k: key, p: resultPath });
  }

  async forget(key: string): Promise<void> {
    if (!this.entries.delete(key)) return;
    await this.append({ k: key, p: null });
  }

  async markScanned(folder: string): Promise<void> {
    if (this.scanned.has(folder)) return;
    this.scanned.add(folder);
    await this.append({ scanned: folder });
  }

  /** Rewrite the file with only the live entries, when dead lines dominate it. */
  async compact(): Promise<void> {
    const live = this.entries.size + this.scanned.size;
    if (this.lines <= COMPACT_RATIO * live + 1_000) return;
    const text = [...[...this.scanned].map((folder) => ({ scanned: folder })), ...[...this.entries].map(([k, p]) => ({ k, p }))].map((line) => `${JSON.stringify(line)}\n`).join('');
    await writeFileAtomically(this.path, text);
    this.lines = live;
  }

  private remember(key: string, resultPath: string): void {
    // Re-inserting moves the key to the newest end; the oldest end is evicted.
    this.entries.delete(key);
    this.entries.set(key, resultPath);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      // Stryker disable next-line ConditionalExpression: equivalent; a map over capacity has an oldest key (the check is for the type).
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  private async append(line: IndexLine): Promise<void> {
    this.lines += 1;
    await appendFile(this.path, `${JSON.stringify(line)}\n`);
  }

  private async load(): Promise<void> {
    try {
      // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent; readline decodes a byte stream as UTF-8 by itself.
      const input = createInterface({ input: createReadStream(this.path, { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const text of input) {
        this.lines += 1;
        const line = parseLine(text);
        if (line === undefined) continue;
        if ('scanned' in line) this.scanned.add(line.scanned);
        else if (line.p === null) this.entries.delete(line.k);
        else this.remember(line.k, line.p);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
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

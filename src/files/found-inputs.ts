import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiscoveredInput } from './discover.js';
import { toDisplayPath } from './paths.js';

/** Files kept in memory before the rest go to disk: a batch of this size costs a few MB. */
const IN_MEMORY = 10_000;
/** Bytes gathered before one write to the spill file. */
const WRITE_BUFFER = 64 * 1024;

const VIA_CODE = { file: 'f', folder: 'd', glob: 'g' } as const satisfies Record<DiscoveredInput['via'], string>;
const VIA_OF: Record<string, DiscoveredInput['via']> = { f: 'file', d: 'folder', g: 'glob' };

/**
 * The files discovery found, in order, for a batch of any size: the first
 * 10,000 are kept in memory, the rest are written to a temporary file as
 * they are found (one line each: how it was found, then its path) and read
 * back in order when they are planned. A million paths would take ~150 MB
 * as objects; here they take 8 bytes each (where each line starts, so that
 * one can be read back to tell a duplicate). The file is removed as soon as
 * it is open, so that it goes with the process, however that ends (Linux and
 * macOS; on Windows, when `close` runs).
 */
export class FoundInputs {
  private readonly head: string[] = [];
  private spill?: Spill;
  private count = 0;

  constructor(
    /** Display paths are made from each path and this folder when read back. */
    private readonly cwd: string,
    private readonly inMemory = IN_MEMORY,
  ) {}

  get length(): number {
    return this.count;
  }

  push(input: Pick<DiscoveredInput, 'path' | 'via'>): number {
    const record = `${VIA_CODE[input.via]}${input.path}`;
    if (this.count < this.inMemory) this.head.push(record);
    else (this.spill ??= new Spill()).append(record);
    return this.count++;
  }

  /** The file found `index`-th (it must have been pushed and not read away by `take`). */
  at(index: number): DiscoveredInput {
    return this.decode(index < this.inMemory ? (this.head[index] as string) : (this.spill as Spill).read(index - this.inMemory));
  }

  /** Every file found, in order, `size` at a time; each is let go of once read. Read once. */
  *slices(size: number): Generator<DiscoveredInput[]> {
    try {
      for (let start = 0; start < this.count; start += size) {
        const slice: DiscoveredInput[] = [];
        for (let index = start; index < Math.min(start + size, this.count); index++) {
          slice.push(this.at(index));
          if (index < this.inMemory) this.head[index] = '';
        }
        yield slice;
      }
    } finally {
      this.close();
    }
  }

  /** Removes the spill file (already unlinked where the system allows it). Safe to call more than once. */
  close(): void {
    this.spill?.close();
  }

  private decode(record: string): DiscoveredInput {
    const via = VIA_OF[record[0] as string] as DiscoveredInput['via'];
    const path = record.slice(1);
    return { path, displayPath: toDisplayPath(path, this.cwd), fromFolder: via !== 'file', via };
  }
}

/** Lines appended to a temporary file, and read back by their number. */
class Spill {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docextract-found-'));
  private readonly fd: number;
  /** Where each line starts; one more entry than lines: where the next starts. */
  private starts = new Float64Array(1_024);
  private lines = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  private closed = false;

  constructor() {
    const path = join(this.dir, 'found');
    this.fd = openSync(path, 'w+');
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Windows keeps an open file: close() removes it.
    }
  }

  append(record: string): void {
    const bytes = Buffer.from(record);
    if (this.lines + 1 >= this.starts.length) {
      const grown = new Float64Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.lines += 1;
    this.starts[this.lines] = (this.starts[this.lines - 1] as number) + bytes.length;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= WRITE_BUFFER) this.flush();
  }

  read(line: number): string {
    const start = this.starts[line] as number;
    const end = this.starts[line + 1] as number;
    if (end > this.written) this.flush();
    const bytes = Buffer.alloc(end - start);
    readSync(this.fd, bytes, 0, bytes.length, start);
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private flush(): void {
    const bytes = Buffer.concat(this.pending);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset, this.written + offset);
    this.written += bytes.length;
    this.pending = [];
    this.pendingBytes = 0;
  }
}

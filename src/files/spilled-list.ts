import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes gathered before one write to the spill file. */
const WRITE_BUFFER = 64 * 1024;

/**
 * A list of texts that may grow to millions: the first `inMemory` are kept
 * as strings, the rest are written to a temporary file as they come and read
 * back by their place in the list, at 8 bytes each in memory (where each
 * starts). The file is removed as soon as it is open, so that it goes with
 * the process however that ends (Linux and macOS; on Windows, at `close`).
 * Our own, not a library's: what is needed is an append-only file and an
 * array of offsets, and the embedded stores on npm are either native or keep
 * their keys in memory.
 */
export class SpilledList {
  private readonly head: string[] = [];
  private spill?: SpillFile;
  private count = 0;

  constructor(private readonly inMemory = 10_000) {}

  get length(): number {
    return this.count;
  }

  /** Adds `text`; returns its place in the list. */
  push(text: string): number {
    if (this.count < this.inMemory) this.head.push(text);
    else (this.spill ??= new SpillFile()).append(text);
    return this.count++;
  }

  /** The text at `index` (it must have been pushed, and not released). */
  at(index: number): string {
    return index < this.inMemory ? (this.head[index] as string) : (this.spill as SpillFile).read(index - this.inMemory);
  }

  /** Lets go of the text at `index` when it is held in memory (it is read once, and already read). */
  release(index: number): void {
    if (index < this.inMemory) this.head[index] = '';
  }

  /** Removes the spill file (already unlinked where the system allows it). Safe to call more than once. */
  close(): void {
    this.spill?.close();
  }
}

/** Texts appended to a temporary file, and read back by their number. */
class SpillFile {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docextract-spill-'));
  private readonly fd: number;
  /** Where each text starts; one more entry than texts: where the next starts. */
  private starts = new Float64Array(1_024);
  private texts = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  private closed = false;

  constructor() {
    this.fd = openSync(join(this.dir, 'list'), 'w+');
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Windows keeps an open file: close() removes it.
    }
  }

  append(text: string): void {
    const bytes = Buffer.from(text);
    if (this.texts + 1 >= this.starts.length) {
      const grown = new Float64Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.texts += 1;
    this.starts[this.texts] = (this.starts[this.texts - 1] as number) + bytes.length;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= WRITE_BUFFER) this.flush();
  }

  read(index: number): string {
    const start = this.starts[index] as number;
    const end = this.starts[index + 1] as number;
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

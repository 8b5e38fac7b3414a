import { toDisplayPath } from '../util/display-path.js';
import { SpilledList } from './spilled-list.js';
import type { ListedVersion } from '../storage/object-inputs.js';

export interface DiscoveredInput {
  /** Absolute, as reached (symbolic links are not resolved, so outputs mirror what the user sees). */
  path: string;
  /** As the user would recognise it: relative to cwd when inside it, absolute otherwise. */
  displayPath: string;
  /** Found by searching (a folder or a glob) rather than named explicitly. */
  fromFolder: boolean;
  /** How it was found: named as a file, inside a named folder, or matched by a glob. */
  via: 'file' | 'folder' | 'glob';
  /** An object listed in a store: `path` is its spool copy, read (downloaded, or found unchanged) when its slice is planned. */
  object?: ListedVersion;
}

/** Files kept in memory before the rest go to disk: a batch of this size costs a few MB. */
const IN_MEMORY = 10_000;

/**
 * Objects listed in a store kept in memory before the rest go to disk. Each
 * record holds its spool path, key and ETag (~300 bytes), and a listing comes
 * a thousand keys a second or faster, all before the first are planned: at
 * 10,000 objects the records were the run's peak of memory, past 150 MB RSS.
 */
export const OBJECTS_IN_MEMORY = 1_000;

const VIA_CODE = { file: 'f', folder: 'd', glob: 'g' } as const satisfies Record<DiscoveredInput['via'], string>;
const VIA_OF: Record<string, DiscoveredInput['via']> = { f: 'file', d: 'folder', g: 'glob' };

/**
 * The files discovery found, in order, for a batch of any size: the first
 * 10,000 are kept in memory, the rest are written to a temporary file as
 * they are found (how each was found, then its path) and read back in order
 * when they are planned (see SpilledList). A million paths would take
 * ~150 MB as objects; here they take 8 bytes each.
 */
export class FoundInputs {
  private readonly records: SpilledList;

  constructor(
    /** Display paths are made from each path and this folder when read back. */
    private readonly cwd: string,
    inMemory = IN_MEMORY,
    /** A path's display other than by its place on disk (an object's spool file shows as its `s3://` address). @default none */
    private readonly shownAs?: (path: string) => string | undefined,
  ) {
    this.records = new SpilledList(inMemory);
  }

  get length(): number {
    return this.records.length;
  }

  push(input: Pick<DiscoveredInput, 'path' | 'via' | 'object'>): number {
    const { object } = input;
    // An object's record: `o`, how it was found, its ETag and size, then its path (an ETag or a spool path holds no NUL).
    if (object) return this.records.push(`o${VIA_CODE[input.via]}${object.etag}\0${object.size}\0${input.path}`);
    return this.records.push(`${VIA_CODE[input.via]}${input.path}`);
  }

  /** The file found `index`-th (it must have been pushed, and not yet read by `slices`). */
  at(index: number): DiscoveredInput {
    return this.decode(this.records.at(index));
  }

  /** Every file found, in order, `size` at a time; each is let go of once read. Read once. */
  *slices(size: number): Generator<DiscoveredInput[]> {
    try {
      for (let start = 0; start < this.length; start += size) {
        const slice: DiscoveredInput[] = [];
        for (let index = start; index < Math.min(start + size, this.length); index++) {
          slice.push(this.at(index));
          this.records.release(index);
        }
        yield slice;
      }
    } finally {
      this.close();
    }
  }

  /** Removes the spill file (already unlinked where the system allows it). Safe to call more than once. */
  close(): void {
    this.records.close();
  }

  private decode(record: string): DiscoveredInput {
    if (record.startsWith('o')) {
      const [etag, size, path] = record.slice(2).split('\0') as [string, string, string];
      return { ...this.found(path, record[1] as string), object: { etag, size: Number(size) } };
    }
    return this.found(record.slice(1), record[0] as string);
  }

  private found(path: string, viaCode: string): DiscoveredInput {
    const via = VIA_OF[viaCode] as DiscoveredInput['via'];
    return { path, displayPath: this.shownAs?.(path) ?? toDisplayPath(path, this.cwd), fromFolder: via !== 'file', via };
  }
}

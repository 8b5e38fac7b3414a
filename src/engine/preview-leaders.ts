import { SpilledList } from '../files/spilled-list.js';
import { hash53, HashedIndex } from '../util/hash53.js';

/**
 * In a preview (`--dry-run`), the file that leads each question planned so
 * far: a later file asking the same is a copy, named after it. A dry run of
 * a million distinct files asks a million questions, and a map of key and
 * path strings would hold ~250 MB; here each costs ~32 bytes in memory (a
 * hash, its place in a SpilledList, and where that text starts), and a
 * lookup reads the key back, so two keys that share a hash are told apart.
 */
export class PreviewLeaders {
  private readonly byHash = new HashedIndex();
  /** Keys whose hash an earlier key holds (about once in 10^4 previews of a million). */
  private readonly sharedHash = new Map<string, string>();
  private readonly records: SpilledList;

  constructor(
    private readonly hash: (text: string) => number = hash53,
    inMemory?: number,
  ) {
    this.records = new SpilledList(inMemory);
  }

  get(key: string): string | undefined {
    const shared = this.sharedHash.get(key);
    if (shared !== undefined) return shared;
    const at = this.byHash.get(this.hash(key));
    if (at === undefined) return undefined;
    const [heldKey, leader] = split(this.records.at(at));
    return heldKey === key ? leader : undefined;
  }

  set(key: string, leader: string): void {
    const hash = this.hash(key);
    const at = this.byHash.get(hash);
    if (at !== undefined && split(this.records.at(at))[0] !== key) this.sharedHash.set(key, leader);
    else this.byHash.set(hash, this.records.push(`${key}\n${leader}`));
  }

  /** Removes the temporary file a large preview wrote. */
  close(): void {
    this.records.close();
  }
}

/** A key never holds a newline (a hash, a model name, page numbers); a path may. */
function split(record: string): [string, string] {
  const newline = record.indexOf('\n');
  return [record.slice(0, newline), record.slice(newline + 1)];
}

import { hash53, HashedIndex } from '../util/hash53.js';

/**
 * Which real paths discovery took already, and at which place in its list:
 * a file reached twice (overlapping arguments, a symbolic link) is taken
 * once. Held as hashes (12 bytes a file at most, not the path strings), and
 * a hit is checked against the real path of the file it points at, so two
 * paths that share a hash are both taken; the later one is then remembered
 * by its text, which happens about once in 10^4 batches of a million.
 */
export class TakenFiles {
  private readonly byHash = new HashedIndex();
  private readonly sharedHash = new Map<string, number>();

  constructor(
    /** The real path of the file taken at `index`. */
    private readonly realOf: (index: number) => Promise<string>,
    private readonly hash: (text: string) => number = hash53,
  ) {}

  /** Where the file whose real path is `real` was taken, if it was. */
  async firstOf(real: string): Promise<number | undefined> {
    const shared = this.sharedHash.get(real);
    if (shared !== undefined) return shared;
    const index = this.byHash.get(this.hash(real));
    if (index === undefined) return undefined;
    return (await this.realOf(index)) === real ? index : undefined;
  }

  /** Remembers that the file whose real path is `real` was taken at `index` (after `firstOf` said it was not). */
  add(real: string, index: number): void {
    const hash = this.hash(real);
    if (this.byHash.get(hash) === undefined) this.byHash.set(hash, index);
    else this.sharedHash.set(real, index);
  }
}

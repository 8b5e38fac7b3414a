import { createHash } from 'node:crypto';

/**
 * A 53-bit hash of a text (the first bits of its SHA-256), exact as a
 * JavaScript number and never 0, so that large sets of paths and keys can be
 * held as numbers in typed arrays instead of as strings. At a million entries
 * two texts share a hash about once in 10^4 runs: every user of it checks a
 * hit against the text itself.
 */
export function hash53(text: string): number {
  const digest = createHash('sha256').update(text).digest();
  return digest.readUInt32BE(0) * 2 ** 21 + (digest.readUInt32BE(4) >>> 11) || 1;
}

/**
 * A map from such hashes to small whole numbers (an index into a list), in
 * two typed arrays with open addressing: 12 bytes a slot, at most half full,
 * against ~55 bytes an entry for a Map of numbers. Entries are never removed.
 */
export class HashedIndex {
  private keys = new Float64Array(1_024);
  private values = new Uint32Array(1_024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(hash: number): number | undefined {
    const slot = this.slotOf(hash);
    return this.keys[slot] === hash ? this.values[slot] : undefined;
  }

  /** Sets `hash` to `value`, replacing what it held. */
  set(hash: number, value: number): void {
    const slot = this.slotOf(hash);
    if (this.keys[slot] !== hash) {
      this.keys[slot] = hash;
      this.count += 1;
    }
    this.values[slot] = value;
    if (this.count * 2 > this.keys.length) this.grow();
  }

  /** The slot that holds `hash`, or the empty one where it would go (linear probing). */
  private slotOf(hash: number): number {
    const mask = this.keys.length - 1;
    // The low 32 bits spread well: the hash is a digest's.
    for (let slot = (hash % 2 ** 32) & mask; ; slot = (slot + 1) & mask) {
      const key = this.keys[slot];
      if (key === hash || key === 0) return slot;
    }
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Uint32Array(values.length * 2);
    this.count = 0;
    keys.forEach((key, slot) => {
      if (key !== 0) this.set(key, values[slot] as number);
    });
  }
}

const EMPTY = 0;
/** Past this share of slots in use, the table doubles: linear probing stays short (~2.5 probes a hit). */
const MAX_LOAD = 0.75;

/**
 * A map from 53-bit hashes (`hash53`) to a few numbers each, held in two
 * typed arrays with open addressing and linear probing: 8 bytes a slot for
 * the key and 8 for each number, at most three quarters full. A Map of
 * hashes to numbers costs ~100 bytes an entry (the numbers are boxed), a Map
 * of paths to objects several hundred: this is for what is kept for every
 * file of a folder of 100,000. Entries can be removed (backward-shift
 * deletion, no tombstones), and the table shrinks when `retain` drops most.
 */
export class HashedRecords {
  private keys: Float64Array;
  private values: Float64Array;
  private count = 0;

  constructor(
    /** Numbers per entry. */
    private readonly width: number,
    private readonly minCapacity = 1_024,
  ) {
    this.keys = new Float64Array(minCapacity);
    this.values = new Float64Array(minCapacity * width);
  }

  get size(): number {
    return this.count;
  }

  /** The numbers held for `hash`, or undefined. */
  get(hash: number): number[] | undefined {
    const slot = this.find(hash);
    return slot < 0 ? undefined : Array.from(this.values.subarray(slot * this.width, (slot + 1) * this.width));
  }

  /** Where `hash`'s entry is (-1: nowhere), for `at`; valid until the next change of the table. */
  find(hash: number): number {
    const slot = this.slotOf(hash);
    return this.keys[slot] === hash ? slot : -1;
  }

  /** Number `column` of the entry at `slot` (from `find`). */
  at(slot: number, column: number): number {
    return this.values[slot * this.width + column] as number;
  }

  /** Holds `numbers` (`width` of them) for `hash`, replacing what it held. */
  set(hash: number, numbers: ArrayLike<number>): void {
    const slot = this.slotOf(hash);
    if (this.keys[slot] !== hash) {
      this.keys[slot] = hash;
      this.count += 1;
    }
    this.values.set(numbers, slot * this.width);
    if (this.count > this.keys.length * MAX_LOAD) this.resize(this.keys.length * 2);
  }

  /** Sets number `column` of `hash`'s entry; false when there is none. */
  setColumn(hash: number, column: number, value: number): boolean {
    const slot = this.slotOf(hash);
    if (this.keys[slot] !== hash) return false;
    this.values[slot * this.width + column] = value;
    return true;
  }

  delete(hash: number): boolean {
    let hole = this.slotOf(hash);
    if (this.keys[hole] !== hash) return false;
    this.count -= 1;
    // Each later entry of the probe run moves into the hole unless its home lies cyclically in (hole, slot].
    const mask = this.keys.length - 1;
    for (let slot = (hole + 1) & mask; this.keys[slot] !== EMPTY; slot = (slot + 1) & mask) {
      const home = this.homeOf(this.keys[slot] as number);
      const staysPut = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
      if (staysPut) continue;
      this.keys[hole] = this.keys[slot] as number;
      this.values.copyWithin(hole * this.width, slot * this.width, (slot + 1) * this.width);
      hole = slot;
    }
    this.keys[hole] = EMPTY;
    return true;
  }

  /** Keeps only the entries `keep` says yes to (given their numbers); returns how many were dropped. */
  retain(keep: (numbers: Float64Array) => boolean): number {
    const { keys, values, width } = this;
    const kept: number[] = [];
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== EMPTY && keep(values.subarray(slot * width, (slot + 1) * width))) kept.push(slot);
    const dropped = this.count - kept.length;
    let capacity = this.minCapacity;
    while (kept.length > capacity * MAX_LOAD * 0.5) capacity *= 2; // half the load: room before the next growth
    this.allocate(capacity);
    for (const slot of kept) this.set(keys[slot] as number, values.subarray(slot * width, (slot + 1) * width));
    return dropped;
  }

  private homeOf(hash: number): number {
    // The low 32 bits spread well: the hash is a digest's.
    return (hash % 2 ** 32) & (this.keys.length - 1);
  }

  /** The slot that holds `hash`, or the empty one where it would go. */
  private slotOf(hash: number): number {
    const mask = this.keys.length - 1;
    for (let slot = this.homeOf(hash); ; slot = (slot + 1) & mask) {
      const key = this.keys[slot];
      if (key === hash || key === EMPTY) return slot;
    }
  }

  private resize(capacity: number): void {
    const { keys, values, width } = this;
    this.allocate(capacity);
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot] as number;
      if (key !== EMPTY) this.set(key, values.subarray(slot * width, (slot + 1) * width));
    }
  }

  private allocate(capacity: number): void {
    this.keys = new Float64Array(capacity);
    this.values = new Float64Array(capacity * this.width);
    this.count = 0;
  }
}

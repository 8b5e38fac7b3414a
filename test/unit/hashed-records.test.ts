import { describe, expect, it } from 'vitest';
import { HashedRecords } from '../../src/util/hashed-records.js';
import { hash53 } from '../../src/util/hash53.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { liveBytes } from '../helpers/live-bytes.js';

const look = (n: number): number[] => [n, 1_764_000_000_000.5 + n];

describe('HashedRecords', () => {
  it('holds its numbers per hash exactly (fractional mtimes, sizes past 4 GB), one column at a time too', () => {
    const taken = new HashedRecords(3);
    taken.set(hash53('/in/a.pdf'), [5 * 2 ** 30, 1_764_000_000_123.456, 1]);
    expect(taken.get(hash53('/in/a.pdf'))).toEqual([5 * 2 ** 30, 1_764_000_000_123.456, 1]);
    expect(taken.setColumn(hash53('/in/a.pdf'), 2, 7)).toBe(true);
    expect(taken.setColumn(hash53('/in/b.pdf'), 2, 7)).toBe(false);
    const slot = taken.find(hash53('/in/a.pdf'));
    expect([taken.at(slot, 0), taken.at(slot, 2)]).toEqual([5 * 2 ** 30, 7]);
    expect(taken.find(hash53('/in/b.pdf'))).toBe(-1);
    expect(taken.get(hash53('/in/b.pdf'))).toBeUndefined();
    expect(taken.size).toBe(1);
  });

  it('agrees with a Map through 20,000 random sets and deletes of hashes that crowd a few homes (backward-shift deletion), across its growths', () => {
    const seed = 20_261_127;
    const next = seededRandom(seed);
    const taken = new HashedRecords(2, 16);
    const model = new Map<number, number>();
    // Hashes whose low bits are alike land on the same few slots: long probe runs, deletes in their middle.
    const hashes = Array.from({ length: 3_000 }, (_, i) => (i + 1) * 2 ** 32 + (i % 7) * 1024 + 1);
    for (let op = 0; op < 20_000; op++) {
      const hash = hashes[Math.floor(next() * hashes.length)] as number;
      if (next() < 0.6) {
        const n = Math.floor(next() * 1e6);
        taken.set(hash, look(n));
        model.set(hash, n);
      } else {
        expect(taken.delete(hash), `seed ${seed}, op ${op}`).toBe(model.delete(hash));
      }
    }
    expect(taken.size).toBe(model.size);
    for (const hash of hashes) expect(taken.get(hash), `seed ${seed}`).toEqual(model.has(hash) ? look(model.get(hash) as number) : undefined);
  });

  it('retain keeps what it is told to, drops the rest, and the table works on after shrinking', () => {
    const taken = new HashedRecords(3, 16);
    for (let i = 1; i <= 1_000; i++) taken.set(hash53(`/in/${i}.pdf`), [...look(i), 1]);
    for (let i = 1; i <= 1_000; i += 10) taken.setColumn(hash53(`/in/${i}.pdf`), 2, 2);
    expect(taken.retain((numbers) => numbers[2] === 2)).toBe(900);
    expect(taken.size).toBe(100);
    for (let i = 1; i <= 1_000; i++) expect(taken.get(hash53(`/in/${i}.pdf`))).toEqual(i % 10 === 1 ? [...look(i), 2] : undefined);
    taken.set(hash53('/in/new.pdf'), [1, 2, 3]);
    expect(taken.delete(hash53('/in/1.pdf'))).toBe(true);
    expect(taken.size).toBe(100);
    expect(taken.get(hash53('/in/new.pdf'))).toEqual([1, 2, 3]);
  });

  it('holds three numbers a file in under 100 bytes (32 a slot, between 3/8 and 3/4 full: 43 to 85 bytes; 84 at 100,000, just past a growth), where a Map of paths to looks held ~390', async () => {
    const paths = Array.from({ length: 100_000 }, (_, i) => `/in/d${i % 100}/f-${i}.png`);
    const hashes = paths.map(hash53);
    const before = await liveBytes();
    const taken = new HashedRecords(3);
    hashes.forEach((hash, i) => taken.set(hash, [...look(i), 1]));
    const perFile = ((await liveBytes()) - before) / hashes.length;
    expect(taken.size).toBe(100_000);
    expect(perFile).toBeLessThan(100);
  });
});

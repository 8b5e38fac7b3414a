import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FoundInputs } from '../../../src/files/found-inputs.js';
import { TakenFiles } from '../../../src/files/taken-files.js';
import { hash53, HashedIndex } from '../../../src/util/hash53.js';

const cwd = '/home/someone';
const spillFolders = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('docextract-spill-'));

describe('FoundInputs', () => {
  it('reads objects listed in a store back whole from disk: ETag, size and address (past OBJECTS_IN_MEMORY they are spilled)', () => {
    const spool = '/state/spool/bucket';
    const found = new FoundInputs(cwd, 1, (path) => `s3://${path.slice('/state/spool/'.length)}`);
    found.push({ path: `${spool}/a.png`, via: 'folder', object: { etag: '"e-1"', size: 10 } });
    found.push({ path: `${spool}/sub/ü b.pdf`, via: 'glob', object: { etag: '"9b2cf535f27731c974343645a3985328-2"', size: 8_388_608 } });
    expect([...found.slices(5)].flat()).toEqual([
      { path: `${spool}/a.png`, displayPath: 's3://bucket/a.png', fromFolder: true, via: 'folder', object: { etag: '"e-1"', size: 10 } },
      {
        path: `${spool}/sub/ü b.pdf`,
        displayPath: 's3://bucket/sub/ü b.pdf',
        fromFolder: true,
        via: 'glob',
        object: { etag: '"9b2cf535f27731c974343645a3985328-2"', size: 8_388_608 },
      },
    ]);
  });

  it('keeps the order and how each file was found, across the files held in memory and those on disk', () => {
    const found = new FoundInputs(cwd, 3);
    const paths = ['/home/someone/in/a.pdf', '/elsewhere/b.png', '/home/someone/in/ü ñ #1.jpg', '/home/someone/in/d.pdf', '/home/someone/in/sub/e.pdf'];
    const vias = ['file', 'glob', 'folder', 'folder', 'glob'] as const;
    paths.forEach((path, i) => expect(found.push({ path, via: vias[i] as (typeof vias)[number] })).toBe(i));
    expect(found.length).toBe(5);
    // One on disk read back before the rest (a duplicate's first mention is looked up this way).
    expect(found.at(3)).toEqual({ path: '/home/someone/in/d.pdf', displayPath: 'in/d.pdf', fromFolder: true, via: 'folder' });
    const slices = [...found.slices(2)];
    expect(slices.map((slice) => slice.length)).toEqual([2, 2, 1]);
    expect(slices.flat()).toEqual([
      { path: paths[0], displayPath: 'in/a.pdf', fromFolder: false, via: 'file' },
      { path: paths[1], displayPath: '/elsewhere/b.png', fromFolder: true, via: 'glob' },
      { path: paths[2], displayPath: 'in/ü ñ #1.jpg', fromFolder: true, via: 'folder' },
      { path: paths[3], displayPath: 'in/d.pdf', fromFolder: true, via: 'folder' },
      { path: paths[4], displayPath: 'in/sub/e.pdf', fromFolder: true, via: 'glob' },
    ]);
  });

  it('leaves no file behind: the spill file is removed once open, and closing twice is safe', () => {
    const before = spillFolders();
    const found = new FoundInputs(cwd, 1);
    for (let i = 0; i < 20_000; i++) found.push({ path: `/home/someone/in/${i}.pdf`, via: 'folder' });
    expect(spillFolders()).toEqual(before);
    expect(found.at(19_999).path).toBe('/home/someone/in/19999.pdf');
    expect([...found.slices(7_000)].flat().map((input) => input.path)).toEqual(Array.from({ length: 20_000 }, (_, i) => `/home/someone/in/${i}.pdf`));
    found.close();
    expect(spillFolders()).toEqual(before);
  });

  it('holds a few bytes a file past its first 10,000, not the paths', async () => {
    const { default: v8 } = await import('node:v8');
    const { default: vm } = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const found = new FoundInputs(cwd);
    const files = 110_000;
    for (let i = 0; i < 10_000; i++) found.push({ path: `/home/someone/archive/folder-${i % 100}/scan-${i}.pdf`, via: 'folder' });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 10_000; i < files; i++) found.push({ path: `/home/someone/archive/folder-${i % 100}/scan-${i}.pdf`, via: 'folder' });
    gc();
    const perFile = (process.memoryUsage().heapUsed - before) / (files - 10_000);
    expect(found.at(files - 1).path).toBe(`/home/someone/archive/folder-99/scan-${files - 1}.pdf`);
    found.close();
    // A path string alone is ~70 bytes, an object of it ~150.
    expect(perFile).toBeLessThan(20);
  });
});

describe('TakenFiles', () => {
  it('finds a real path taken before, and tells apart two paths that share a hash', async () => {
    const reals = ['/a/one.pdf', '/a/two.pdf', '/a/three.pdf'];
    // Every path hashes alike: each hit must be checked against the real path.
    const taken = new TakenFiles(
      async (index) => reals[index] as string,
      () => 7,
    );
    expect(await taken.firstOf('/a/one.pdf')).toBeUndefined();
    taken.add('/a/one.pdf', 0);
    expect(await taken.firstOf('/a/one.pdf')).toBe(0);
    expect(await taken.firstOf('/a/two.pdf')).toBeUndefined();
    taken.add('/a/two.pdf', 1);
    taken.add('/a/three.pdf', 2);
    expect(await Promise.all(reals.map((real) => taken.firstOf(real)))).toEqual([0, 1, 2]);
    expect(await taken.firstOf('/a/four.pdf')).toBeUndefined();
  });
});

describe('HashedIndex', () => {
  it('maps hashes to numbers through many growths', () => {
    const index = new HashedIndex();
    const hashes = Array.from({ length: 50_000 }, (_, i) => hash53(`/in/${i}.pdf`));
    hashes.forEach((hash, i) => index.set(hash, i));
    index.set(hashes[7] as number, 70);
    expect(index.size).toBe(50_000);
    expect(hashes.every((hash, i) => index.get(hash) === (i === 7 ? 70 : i))).toBe(true);
    expect(index.get(hash53('/in/absent.pdf'))).toBeUndefined();
  });

  it('hashes to a whole number below 2^53, never 0', () => {
    for (const text of ['', 'a', '/in/x.pdf']) {
      const hash = hash53(text);
      expect(Number.isSafeInteger(hash) && hash > 0).toBe(true);
    }
    expect(hash53('/in/x.pdf')).toBe(hash53('/in/x.pdf'));
    expect(hash53('/in/x.pdf')).not.toBe(hash53('/in/y.pdf'));
  });
});

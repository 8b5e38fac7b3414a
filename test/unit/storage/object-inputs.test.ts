/**
 * ObjectInputs against a real S3 server (moto, the worker's): a paged listing
 * (300 keys: moto takes ~40 puts a second on a shared machine, so npm test stays short), and a key overwritten between its listing and its
 * download, held at that exact point by a store that does the overwrite
 * before it downloads.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ObjectInputs, type ListedVersion, type ObjectFindings } from '../../../src/storage/object-inputs.js';
import type { ObjectStore } from '../../../src/storage/object-store.js';
import { startMoto } from '../../helpers/moto.js';
import { makeBucket } from '../../helpers/s3-objects.js';
import { corpusFile, useMotoStore } from '../../helpers/moto-suite.js';
import { planDocumentStream } from '../../../src/engine/plan-documents.js';

const store = useMotoStore();

interface Found {
  files: string[];
  listed: ListedVersion[];
  skipped: string[];
  problems: string[];
}

function collector(): ObjectFindings & Found {
  const found: Found = { files: [], listed: [], skipped: [], problems: [] };
  return {
    ...found,
    file: async (path, _via, listed) => {
      found.files.push(path);
      found.listed.push(listed);
    },
    skip: (uri, reason) => void found.skipped.push(`${uri}: ${reason}`),
    problem: (code, message) => void found.problems.push(`${code}: ${message}`),
  };
}

const options = (extra: Partial<ConstructorParameters<typeof ObjectInputs>[0]> = {}) => ({
  spoolDir: mkdtempSync(join(tmpdir(), 'docextract-spool-')),
  endpoint: store.moto.url,
  env: store.moto.env,
  ...extra,
});

/** A store in this process: `list` and `download` as the test says, nothing else used. */
function stubStore(parts: Pick<ObjectStore, 'list' | 'download'>): ObjectStore {
  return {
    identity: 'stand-in',
    head: async () => undefined,
    ...parts,
    put: async () => '',
    close: () => undefined,
    copy: async () => '',
    remove: async () => undefined,
  };
}

/** Runs `work` a few at a time: moto serves one request at a time well, thousands at once badly. */
async function limited<T>(items: readonly T[], work: (item: T) => Promise<unknown>, concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

describe('object inputs against moto', () => {
  it('lists 300 keys a page at a time (12 a page: 26 requests) and takes only what the glob matches', async () => {
    const bucket = await makeBucket(store.s3, 'many-keys');
    const keys = Array.from({ length: 300 }, (_, index) => `keys/${String(index).padStart(5, '0')}.txt`);
    await limited(keys, (key) => bucket.put(key, new Uint8Array()));
    await bucket.put('keys/zz/last.pdf', '%PDF-1.4 not read here');
    await store.moto.clearLog();
    const inputs = new ObjectInputs(options({ pageSize: 12 }));
    const found = collector();
    await inputs.visit('s3://many-keys/keys/**/*.pdf', true, found);
    inputs.close();
    expect(found.problems).toEqual([]);
    expect(found.files.map((path) => path.split('/objects/')[1])).toEqual(['many-keys/keys/zz/last.pdf']);
    expect(store.moto.requests.filter((request) => request.target.includes('list-type=2'))).toHaveLength(26);
  }, 60_000);

  it('a key overwritten after it was listed is not read as the version listed: refused by its read (object_changed), and the next run takes the new one', async () => {
    const bucket = await makeBucket(store.s3, 'overwritten');
    await bucket.put('in/a.pdf', 'version one');
    const settings = options();
    const first = new ObjectInputs(settings);
    const listed = collector();
    await first.visit('s3://overwritten/in/', true, listed);
    // The exact point: the listing has the first ETag, the download has not started (visit downloads nothing).
    expect(existsSync(listed.files[0] as string)).toBe(false);
    await bucket.put('in/a.pdf', 'version two, longer');
    const unread = await first.read(listed.files[0] as string, listed.listed[0] as ListedVersion);
    first.close();
    expect(unread).toEqual({
      ok: false,
      code: 'object_changed',
      message: expect.stringContaining('s3://overwritten/in/a.pdf: the object is not the version this run knew'),
    });
    expect(first.figures).toMatchObject({ listed: 1, downloaded: 0, unchanged: 0 });

    const plain = new ObjectInputs(settings);
    const second = collector();
    await plain.visit('s3://overwritten/in/', true, second);
    const [path, version] = [second.files[0] as string, second.listed[0] as ListedVersion];
    expect(await plain.read(path, version)).toBeUndefined();
    // Checked, as planning checks it: its record is written then.
    await plain.checked(path, version, {
      ok: true,
      path,
      size: 19,
      sha256: 'ab'.repeat(32),
      type: 'pdf',
      contentType: 'application/pdf',
      pages: 1,
      split: false,
    });
    // Read again as the same version: found unchanged in the spool, not downloaded twice.
    expect(await plain.read(path, version)).toBeUndefined();
    plain.close();
    expect(readFileSync(second.files[0] as string, 'utf8')).toBe('version two, longer');
    expect(plain.figures).toMatchObject({ requests: 1, listed: 1, listed_bytes: 19, downloaded: 1, downloaded_bytes: 19, unchanged: 1, unchanged_bytes: 19 });
  });

  it('lists without downloading, in listing order; reads download 16 objects at once, never more', async () => {
    // A stand-in store: each download is held until 16 are in flight (the exact point), or for 2 s when they never are.
    const keys = Array.from({ length: 20 }, (_, index) => `in/${String(index).padStart(2, '0')}.png`);
    keys.splice(10, 0, 'in/notes.txt');
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const sixteenAtOnce = new Promise<void>((resolve) => (release = resolve));
    const standIn: ObjectStore = {
      identity: 'stand-in',
      head: async () => undefined,
      async *list() {
        for (let at = 0; at < keys.length; at += 5) yield keys.slice(at, at + 5).map((key) => ({ key, etag: `"${key}"`, size: 3 }));
      },
      download: async (_bucket, key, _etag, path) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        if (inFlight >= 16) release();
        const fallback = new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref());
        await Promise.race([sixteenAtOnce, fallback]);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, key.slice(-3));
        inFlight -= 1;
      },
      put: async () => '',
      close: () => undefined,
      copy: async () => '',
      remove: async () => undefined,
    };
    const inputs = new ObjectInputs(options({ open: async () => standIn }));
    const found = collector();
    await inputs.visit('s3://stand-in/in/', true, found);
    expect(most).toBe(0);
    expect(found.files.map((path) => path.split('/stand-in/')[1])).toEqual(keys.filter((key) => key.endsWith('.png')));
    expect(found.skipped).toEqual([expect.stringMatching(/^s3:\/\/stand-in\/in\/notes\.txt: not a PDF/)]);
    expect(found.problems).toEqual([]);
    // As the planner asks: every file of a slice at once.
    const unread = await Promise.all(found.files.map((path, index) => inputs.read(path, found.listed[index] as ListedVersion)));
    inputs.close();
    expect(unread.every((why) => why === undefined)).toBe(true);
    expect(most).toBe(16);
    expect(inputs.figures).toMatchObject({ requests: 5, listed: 21, downloaded: 20, downloaded_bytes: 60 });
  }, 60_000);

  it('with readWhileListing, the first objects download while later pages are listed, and their reads download nothing again', async () => {
    // The second page is listed only once the first object's download was asked for (the exact point), or after 2 s.
    const events: string[] = [];
    let asked: () => void = () => undefined;
    const firstAsked = new Promise<void>((resolve) => (asked = resolve));
    const standIn = stubStore({
      async *list() {
        yield ['in/a.png', 'in/b.png', 'in/c.png'].map((key) => ({ key, etag: `"${key}"`, size: 3 }));
        await Promise.race([firstAsked, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
        events.push('page 2 listed');
        yield [{ key: 'in/d.png', etag: '"in/d.png"', size: 3 }];
      },
      download: async (_bucket, key, _etag, path) => {
        events.push(`download ${key}`);
        // The first object's, not whichever of the two read while listing the thread pool answers first.
        if (key === 'in/a.png') asked();
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, 'png');
      },
    });
    const inputs = new ObjectInputs(options({ open: async () => standIn, readWhileListing: 2 }));
    const found = collector();
    await inputs.visit('s3://stand-in/in/', true, found);
    expect(events.indexOf('download in/a.png')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('download in/a.png')).toBeLessThan(events.indexOf('page 2 listed'));
    const unread = await Promise.all(found.files.map((path, index) => inputs.read(path, found.listed[index] as ListedVersion)));
    inputs.close();
    expect(unread).toEqual([undefined, undefined, undefined, undefined]);
    // Only the first two were read while listing; each object was downloaded once.
    expect(events.filter((event) => event.startsWith('download')).sort()).toEqual(['a', 'b', 'c', 'd'].map((name) => `download in/${name}.png`));
    expect(inputs.figures).toMatchObject({ downloaded: 4, unchanged: 0 });
  });

  it("planning a slice starts downloading the next slice's objects: the sender never waits at a slice's boundary", async () => {
    // b's download (the first slice's) is answered only once c's (the second slice's) was asked for, or after 2 s.
    const png = corpusFile('images/id-card.png');
    const events: string[] = [];
    let asked: () => void = () => undefined;
    const nextSliceAsked = new Promise<void>((resolve) => (asked = resolve));
    const keys = ['in/a.png', 'in/b.png', 'in/c.png', 'in/d.png'];
    const standIn = stubStore({
      async *list() {
        yield keys.map((key) => ({ key, etag: `"${key}"`, size: png.length }));
      },
      download: async (_bucket, key, _etag, path) => {
        events.push(`asked ${key}`);
        if (key === 'in/c.png') asked();
        if (key === 'in/b.png') await Promise.race([nextSliceAsked, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, png);
        events.push(`done ${key}`);
      },
    });
    const cwd = mkdtempSync(join(tmpdir(), 'docextract-plan-'));
    const { spoolDir } = options();
    const stream = await planDocumentStream(
      ['s3://stand-in/in/'],
      { cwd, outDir: join(cwd, 'out'), windows: [], ttlMs: 3_600_000, marginMs: 60_000, objects: { spoolDir, open: async () => standIn } },
      2,
    );
    const planned: string[] = [];
    for await (const slice of stream.slices) planned.push(...slice.documents.map((doc) => doc.path.split('/in/')[1] as string));
    expect(planned).toEqual(['a.png', 'b.png', 'c.png', 'd.png']);
    expect(events.indexOf('asked in/c.png')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('asked in/c.png')).toBeLessThan(events.indexOf('done in/b.png'));
    expect(stream.objects).toMatchObject({ downloaded: 4, unchanged: 0 });
  });

  it('documents planned from objects come 40 at a time, not a whole slice: sending starts once the first are read, and never waits for the last downloads of its slice', async () => {
    const png = corpusFile('images/id-card.png');
    const keys = Array.from({ length: 125 }, (_, index) => `in/${String(index).padStart(3, '0')}.png`);
    const standIn = stubStore({
      async *list() {
        yield keys.map((key) => ({ key, etag: `"${key}"`, size: png.length }));
      },
      download: async (_bucket, _key, _etag, path) => {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, png);
      },
    });
    const cwd = mkdtempSync(join(tmpdir(), 'docextract-plan-'));
    const { spoolDir } = options();
    const stream = await planDocumentStream(
      ['s3://stand-in/in/'],
      {
        cwd,
        outDir: join(cwd, 'out'),
        windows: [],
        ttlMs: 3_600_000,
        marginMs: 60_000,
        objects: { spoolDir, open: async () => standIn },
      },
      100,
    );
    const sizes: number[] = [];
    for await (const slice of stream.slices) sizes.push(slice.documents.length);
    // Slices of 100 (read ahead one at a time), each handed on in runs of 40.
    expect(sizes).toEqual([40, 40, 20, 25]);
    expect(stream.objects).toMatchObject({ downloaded: 125 });
  });

  it('a missing moto_server fails the test that needs it, saying so', async () => {
    const saved = process.env.MOTO_SERVER;
    process.env.MOTO_SERVER = '/nonexistent/moto_server';
    try {
      await expect(startMoto()).rejects.toThrow(/moto_server is not installed/);
    } finally {
      if (saved === undefined) delete process.env.MOTO_SERVER;
      else process.env.MOTO_SERVER = saved;
    }
  });
});

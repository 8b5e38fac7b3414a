/**
 * `extract s3://…` reads each object when its slice is planned, not while
 * the inputs are found (issue 54): the first document goes to the service
 * while later objects are still in the bucket. The exact point is held by a
 * stand-in in front of moto: the last object's download is forwarded only
 * once the service has had its first upload. And `--dry-run` says what it
 * listed and read.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PLAN_SLICE } from '../../src/engine/running-window.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { corpusFile, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { startS3StandIn } from '../helpers/s3-stand-in.js';
import { runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';

// Slices of 20 documents, not 500: what is proved is that a later slice's objects wait for its planning,
// whatever a slice's size; 501 objects put, listed, downloaded and extracted were most of the file's CPU.
// Replacing a module, the file runs in a process of its own (ISOLATED in vitest.config.ts).
vi.mock('../../src/engine/running-window.js', async (original) => ({
  ...(await original<typeof import('../../src/engine/running-window.js')>()),
  PLAN_SLICE: 20,
}));

const suite = useMotoSuite();
const downloads = (): number => suite.moto.requests.filter((request) => request.target.includes('x-id=GetObject')).length;

/** Runs `work` a few at a time: moto serves one request at a time well, hundreds at once badly. */
async function limited<T>(items: readonly T[], work: (item: T) => Promise<unknown>, concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/** Resolves to 'upload' once the service has had an upload, or to 'gave up' after `ms` (the test then fails, saying why). */
function firstUpload(ms: number): Promise<'upload' | 'gave up'> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (suite.paidRequests() === 0) return;
      clearInterval(poll);
      clearTimeout(fallback);
      resolve('upload');
    }, 20);
    const fallback = setTimeout(() => {
      clearInterval(poll);
      resolve('gave up');
    }, ms);
  });
}

describe('s3:// objects are read as they are planned', () => {
  it('the first document is sent before the last object is downloaded', async () => {
    expect(PLAN_SLICE, 'the slice replaced above').toBe(20);
    // One slice and one object more: the last object is in the second slice.
    const keys = Array.from({ length: PLAN_SLICE + 1 }, (_, index) => `batch/${String(index).padStart(4, '0')}.png`);
    const last = keys[keys.length - 1] as string;
    const bucket = await makeBucket(suite.s3, 'streamed');
    const png = corpusFile('images/id-card.png');
    await limited(keys, (key) => bucket.put(key, png));
    const standIn = await startS3StandIn(suite.moto.url);
    try {
      // Found before planning (as before the fix), the last object would wait for an upload that never comes until then.
      const opened = firstUpload(30_000);
      standIn.gate((req) => req.method === 'GET' && (req.url ?? '').startsWith(`/streamed/${last}`), opened);
      const env = { ...suite.env(), AWS_ENDPOINT_URL_S3: standIn.url };
      const out = join(mkdtempSync(join(tmpdir(), 'docextract-s3-')), 'out');
      const run = await runCli(['extract', 's3://streamed/batch/', '--out', out, '--json', ...UNTHROTTLED_FLAGS], { env });
      expect(await opened).toBe('upload');
      expect(run.code, run.stderr).toBe(0);
      const lines = parseNdjson(run.stdout);
      expect(lines).toHaveLength(keys.length);
      expect(lines.every((line) => line.status === 'complete')).toBe(true);
    } finally {
      await standIn.close();
    }
  }, 180_000);

  it('an object whose body is reset every time fails alone, naming its address and code; nothing of it is sent', async () => {
    const bucket = await makeBucket(suite.s3, 'reset');
    await bucket.put('in/broken.jpg', corpusFile('images/receipt.jpg'));
    await bucket.put('in/fine.png', corpusFile('images/id-card.png'));
    await bucket.put('in/other.pdf', corpusFile('pdf/pages-2.pdf'));
    const standIn = await startS3StandIn(suite.moto.url);
    try {
      standIn.cutMidBody((req) => req.method === 'GET' && (req.url ?? '').startsWith('/reset/in/broken.jpg'), 100);
      const before = suite.emu.counters.requestsByEndpoint.documents;
      const out = join(mkdtempSync(join(tmpdir(), 'docextract-s3-')), 'out');
      const run = await runCli(['extract', 's3://reset/in/', '--out', out, '--json', ...UNTHROTTLED_FLAGS], {
        env: { ...suite.env(), AWS_ENDPOINT_URL_S3: standIn.url },
      });
      const lines = parseNdjson(run.stdout) as { file: string; status: string; error?: { code: string; message: string } }[];
      const broken = lines.find((line) => line.file === 's3://reset/in/broken.jpg');
      expect(broken).toMatchObject({ status: 'failed', error: { code: 'object_store_failed' } });
      expect(broken?.error?.message).toContain('s3://reset/in/broken.jpg');
      expect(standIn.cut).toHaveLength(3);
      expect(run.code).toBe(1);
      expect(
        lines
          .filter((line) => line.status === 'complete')
          .map((line) => line.file)
          .sort(),
      ).toEqual(['s3://reset/in/fine.png', 's3://reset/in/other.pdf']);
      // fine.png and other.pdf: half of broken.jpg would have been a third upload.
      expect(suite.emu.counters.requestsByEndpoint.documents - before).toBe(2);
    } finally {
      await standIn.close();
    }
  }, 60_000);

  it('--dry-run says how many objects and bytes it listed and read; a dry run after it downloads nothing', async () => {
    const bucket = await makeBucket(suite.s3, 'previewed');
    const pdf = corpusFile('pdf/pages-2.pdf');
    const png = corpusFile('images/id-card.png');
    await bucket.put('in/a.pdf', pdf);
    await bucket.put('in/b.png', png);
    await bucket.put('in/notes.txt', 'not a document');
    const env = suite.env();
    const out = join(mkdtempSync(join(tmpdir(), 'docextract-s3-')), 'out');
    const listedBytes = pdf.length + png.length + 'not a document'.length;

    const first = await runCli(['extract', 's3://previewed/in/', '--out', out, '--dry-run', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      total: { files: 2 },
      objects: {
        requests: 1,
        listed: 3,
        listed_bytes: listedBytes,
        downloaded: 2,
        downloaded_bytes: pdf.length + png.length,
        unchanged: 0,
        unchanged_bytes: 0,
      },
    });
    expect(downloads()).toBe(2);

    await suite.moto.clearLog();
    const again = await runCli(['extract', 's3://previewed/in/', '--out', out, '--dry-run'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `objects: 3 objects listed (${listedBytes} bytes, 1 listing request); read 2 (${pdf.length + png.length} bytes): 0 downloaded (0 bytes), 2 unchanged since an earlier read (${pdf.length + png.length} bytes)`,
    );
    expect(downloads()).toBe(0);
  }, 60_000);
});

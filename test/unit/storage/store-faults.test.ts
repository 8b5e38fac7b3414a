/**
 * What moto cannot do, by the stand-in in front of it: a 503 SlowDown on a
 * listing page, retried by the SDK within its attempts; a connection reset
 * in the middle of an object's body, downloaded again a bounded number of
 * times (the SDK retries requests, not bodies).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ObjectInputs, type ObjectFindings } from '../../../src/storage/object-inputs.js';
import { useMotoStore } from '../../helpers/moto-suite.js';
import { makeBucket } from '../../helpers/s3-objects.js';

const store = useMotoStore({ standIn: true });

function visitor(): ObjectFindings & { files: string[]; skipped: string[]; problems: string[] } {
  const found = { files: [] as string[], skipped: [] as string[], problems: [] as string[] };
  return {
    ...found,
    file: async (path) => void found.files.push(path),
    skip: (uri, reason) => void found.skipped.push(`${uri}: ${reason}`),
    problem: (code, message) => void found.problems.push(`${code}: ${message}`),
  };
}

describe('object inputs through faults', () => {
  it('a listing answered 503 SlowDown three times is retried (4 attempts, one more than the SDK default) and read', async () => {
    const bucket = await makeBucket(store.s3, 'slow-listing');
    await bucket.put('in/a.pdf', '%PDF-1.4');
    store.standIn.slowDown((req) => (req.url ?? '').includes('list-type=2'), 3);
    const inputs = new ObjectInputs({ spoolDir: mkdtempSync(join(tmpdir(), 'docextract-spool-')), endpoint: store.standIn.url, env: store.moto.env });
    const found = visitor();
    await inputs.visit('s3://slow-listing/in/', true, found);
    inputs.close();
    expect(found.problems).toEqual([]);
    expect(found.files).toHaveLength(1);
  });

  /** One object listed under `bucket`, its bytes, and where it is read to. */
  async function oneObject(
    bucket: string,
  ): Promise<{ inputs: ObjectInputs; bytes: Buffer; path: string; listed: { etag: string; size: number }; spoolDir: string }> {
    const bytes = Buffer.from(`%PDF-1.4\n${'x'.repeat(4000)}\n%%EOF\n`);
    await (await makeBucket(store.s3, bucket)).put('in/a.pdf', bytes);
    const spoolDir = mkdtempSync(join(tmpdir(), 'docextract-spool-'));
    const inputs = new ObjectInputs({ spoolDir, endpoint: store.standIn.url, env: store.moto.env });
    const found = visitor();
    let listed = { etag: '', size: 0 };
    await inputs.visit(`s3://${bucket}/in/`, true, { ...found, file: async (path, _via, version) => void (found.files.push(path), (listed = version)) });
    return { inputs, bytes, path: found.files[0] as string, listed, spoolDir };
  }
  const getOf = (bucket: string) => (req: { method?: string; url?: string }) => req.method === 'GET' && (req.url ?? '').startsWith(`/${bucket}/in/a.pdf`);

  it('a body reset halfway (Content-Length of the whole) is downloaded again, and the whole object is kept', async () => {
    const { inputs, bytes, path, listed } = await oneObject('reset-once');
    store.standIn.cutMidBody(getOf('reset-once'), 1);
    expect(await inputs.read(path, listed)).toBeUndefined();
    inputs.close();
    expect(store.standIn.cut.filter((request) => request.includes('/reset-once/'))).toHaveLength(1);
    expect(readFileSync(path)).toEqual(bytes);
    expect(inputs.figures).toMatchObject({ downloaded: 1, downloaded_bytes: bytes.length });
  });

  it('a body reset every time is tried 3 times, then that object is not read: a code and its s3:// address, no partial copy left', async () => {
    const { inputs, path, listed } = await oneObject('reset-always');
    store.standIn.cutMidBody(getOf('reset-always'), 10);
    const unread = await inputs.read(path, listed);
    inputs.close();
    expect(store.standIn.cut.filter((request) => request.includes('/reset-always/'))).toHaveLength(3);
    expect(unread).toMatchObject({ ok: false, code: 'object_store_failed' });
    expect(unread?.ok === false && unread.message).toContain('s3://reset-always/in/a.pdf');
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(join(path, '..'))).toEqual([]);
  });
});

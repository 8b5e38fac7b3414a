/**
 * The moves of `watch s3://… --move-done s3://…` against a real S3 server
 * (moto, the worker's; the test fails when it is missing), at the exact
 * points a newer upload can land: after the listing (before the copy), and
 * between the copy and the delete (an injected step). A newer upload is
 * never deleted. And a listing answered 503 SlowDown past the SDK's retries
 * (a stand-in in front of moto) is said and tried again, on the fake clock.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';
import { ObjectWatchMoves } from '../../../src/engine/watch-object-moves.js';
import { ObjectInbox } from '../../../src/storage/object-inbox.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { MOTO_CREDENTIALS } from '../../helpers/moto.js';
import { useMotoStore } from '../../helpers/moto-suite.js';
import { makeBucket, type TestBucket } from '../../helpers/s3-objects.js';

const store = useMotoStore({ standIn: true });

const complete = (file: string): DocumentOutcome => ({ file, status: 'complete' }) as DocumentOutcome;

async function openInbox(endpoint = store.moto.url): Promise<ObjectInbox> {
  return ObjectInbox.open('s3://moves-bucket/inbox/', {
    endpoint,
    env: MOTO_CREDENTIALS,
    spoolDir: join(mkdtempSync(join(tmpdir(), 'docextract-s3moves-')), 'objects'),
    exclude: [{ bucket: 'moves-bucket', prefix: 'inbox/done/' }],
  });
}

/** The first page of new objects the inbox lists; none once a whole listing found none (it then waits for its next poll on the clock). */
async function firstArrivals(inbox: ObjectInbox, notices: string[] = []): Promise<string[]> {
  const clock = new FakeClock();
  const stop = new AbortController();
  const pages = inbox.arrivals(clock, 60_000, (message) => notices.push(message), stop.signal);
  const next = pages.next();
  let taken = false;
  void next.finally(() => (taken = true));
  while (!taken && clock.pendingTimers() === 0) await new Promise((resolve) => setImmediate(resolve));
  stop.abort();
  const first = await next;
  await pages.return(undefined);
  return first.done ? [] : first.value;
}

describe('--move-done s3:// never deletes a newer upload', () => {
  let bucket: TestBucket;
  beforeEach(async () => {
    bucket = await makeBucket(store.s3, 'moves-bucket');
  });

  it('moves the version processed: copied below the done folder (inside the inbox, never listed), then deleted', async () => {
    await bucket.put('inbox/a.pdf', 'version one');
    const inbox = await openInbox();
    const [path] = await firstArrivals(inbox);
    const moves = new ObjectWatchMoves(inbox, { done: { bucket: 'moves-bucket', prefix: 'inbox/done/' } }, {});
    moves.finished(complete('s3://moves-bucket/inbox/a.pdf'), path!);
    await moves.drain();
    expect(await bucket.keys()).toEqual(['inbox/done/a.pdf']);
    expect(await store.objectText('moves-bucket', 'inbox/done/a.pdf')).toBe('version one');
    expect(await firstArrivals(inbox)).toEqual([]); // the done folder inside the inbox is never taken from
    inbox.close();
  });

  it('an object uploaded again after it was listed (before the copy) is not deleted, and its copy not kept', async () => {
    await bucket.put('inbox/a.pdf', 'version one');
    const inbox = await openInbox();
    const [path] = await firstArrivals(inbox);
    await bucket.put('inbox/a.pdf', 'version two');
    const notices: string[] = [];
    const moves = new ObjectWatchMoves(inbox, { done: { bucket: 'moves-bucket', prefix: 'done/' } }, { notice: (message) => notices.push(message) });
    moves.finished(complete('s3://moves-bucket/inbox/a.pdf'), path!);
    await moves.drain();
    expect(await bucket.keys()).toEqual(['inbox/a.pdf']);
    expect(await store.objectText('moves-bucket', 'inbox/a.pdf')).toBe('version two');
    expect(notices.join('\n')).toContain('uploaded again');
    // The new version is a new document: the next listing takes it.
    expect(await firstArrivals(inbox)).toEqual([path]);
    inbox.close();
  });

  it('an object uploaded again between the copy and the delete is not deleted', async () => {
    await bucket.put('inbox/a.pdf', 'version one');
    const inbox = await openInbox();
    const [path] = await firstArrivals(inbox);
    const moves = new ObjectWatchMoves(inbox, { done: { bucket: 'moves-bucket', prefix: 'done/' } }, {}, async () => {
      await bucket.put('inbox/a.pdf', 'version two');
    });
    moves.finished(complete('s3://moves-bucket/inbox/a.pdf'), path!);
    await moves.drain();
    expect(await store.objectText('moves-bucket', 'inbox/a.pdf')).toBe('version two');
    expect(await bucket.keys('done/')).toEqual([]);
    inbox.close();
  });
});

describe('a listing that fails', () => {
  it('answered 503 SlowDown past the SDK retries: said with the address and code, listed again after the poll, on the clock', async () => {
    const bucket = await makeBucket(store.s3, 'moves-bucket');
    await bucket.put('inbox/a.pdf', 'one');
    store.standIn.slowDown((req) => (req.url ?? '').includes('list-type=2'), 4);
    const inbox = await openInbox(store.standIn.url);
    const clock = new FakeClock();
    const notices: string[] = [];
    const stop = new AbortController();
    const pages = inbox.arrivals(clock, 10_000, (message) => notices.push(message), stop.signal);
    const next = pages.next();
    let ended = false;
    void next.then(
      () => (ended = true),
      () => (ended = true),
    );
    // The positive signal that the listing failed and was handled: the wait for the next poll, on the clock.
    while (!ended && clock.pendingTimers() === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^s3:\/\/moves-bucket\/inbox\/: .*\[object_store_failed\]; listing s3:\/\/moves-bucket\/inbox\/ again in 10 s$/);
    await clock.advance(10_000);
    expect((await next).value).toHaveLength(1);
    stop.abort();
    await pages.return(undefined);
    inbox.close();
  });
});

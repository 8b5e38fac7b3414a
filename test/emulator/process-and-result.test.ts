import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageFingerprint, type EmulatorEvent, type EmulatorRequestLog } from '../../src/emulator/index.js';
import { titledPdf } from '../helpers/make-pdf.js';
import {
  bearer,
  chunkIds,
  collect,
  expectError,
  json,
  newKey,
  pngBytes,
  processChunk,
  startTestEmulator,
  upload,
  uploadSplit,
  type TestEmulator,
} from './helpers.js';
import { waitFor } from '../helpers/wait-for.js';

const poorKey = newKey();
let t: TestEmulator;

beforeAll(async () => {
  t = await startTestEmulator({ keys: [newKey(), { key: poorKey, credits: 5 }], openJobCap: 100 });
});
afterAll(() => t.emulator.close());

describe('POST process', () => {
  it('processes a chunk once, charging its pages after persisting, and replays for free', async () => {
    const manifest = await uploadSplit(t, 7);
    const [first = ''] = chunkIds(manifest);
    const before = t.emulator.counters.creditsCharged;
    const fresh = await json(await processChunk(t, first));
    expect(fresh).toMatchObject({
      success: true,
      data: null,
      job_id: first,
      status: 'done',
      code: 'chunk_processed',
      pages: '1-3',
      chunks_done: 1,
      chunks_total: 3,
    });
    expect(Number.isInteger(fresh.processing_time_ms)).toBe(true);
    expect(t.emulator.counters.creditsCharged - before).toBe(3);

    const replay = await json(await processChunk(t, first));
    expect(replay).toMatchObject({ success: true, data: null, job_id: first, status: 'done', code: 'chunk_already_processed', chunks_done: 1 });
    expect(replay).not.toHaveProperty('processing_time_ms');
    expect(t.emulator.counters.creditsCharged - before).toBe(3);
  });

  it('takes job_id from the query or from a form field, and needs it', async () => {
    const manifest = await uploadSplit(t, 4);
    const form = new FormData();
    form.append('job_id', manifest.data[1]?.job_id ?? '');
    expect((await json(await fetch(`${t.url}/v3.1/process`, { method: 'POST', headers: bearer(t.key), body: form }))).code).toBe('chunk_processed');
    await expectError(await fetch(`${t.url}/v3.1/process`, { method: 'POST', headers: bearer(t.key) }), 400, 'invalid_request');
    await expectError(await fetch(`${t.url}/v3.1/process?job_id=`, { method: 'POST', headers: bearer(t.key) }), 400, 'invalid_request');
  });

  it('validates per-chunk options', async () => {
    const [chunk = ''] = chunkIds(await uploadSplit(t, 4));
    const form = new FormData();
    form.append('options', '{not json');
    await expectError(await fetch(`${t.url}/v3.1/process?job_id=${chunk}`, { method: 'POST', headers: bearer(t.key), body: form }), 400, 'invalid_options');
    await expectError(await processChunk(t, chunk, { model: 'no_such_template' }), 400, 'unknown_model');
  });

  it('gives 404 job_not_found for a parent id or an unknown id', async () => {
    const manifest = await uploadSplit(t, 4);
    await expectError(await processChunk(t, manifest.job_id), 404, 'job_not_found');
    await expectError(await processChunk(t, 'job_0000'), 404, 'job_not_found');
  });

  it('gives 402 insufficient_credits when the balance does not cover the chunk', async () => {
    const manifest = await uploadSplit(t, 5, { key: poorKey });
    const [first = '', second = ''] = chunkIds(manifest);
    expect((await upload(t, pngBytes(), { headers: bearer(poorKey) })).status).toBe(200);
    expect((await processChunk(t, first, { key: poorKey })).status).toBe(200);
    // 1 credit left, the second chunk has 2 pages.
    await expectError(await processChunk(t, second, { key: poorKey }), 402, 'insufficient_credits');
    expect((await json(await fetch(`${t.url}/v3.1/authorised`, { headers: bearer(poorKey) }))).data.credits_remaining).toBe(1);
    expect((await json(await collect(t, manifest.job_id, { key: poorKey }))).pending_pages).toEqual([4, 5]);
  });

  it('keeps a failing chunk retryable at no charge and reports its pages as failed', async () => {
    const manifest = await uploadSplit(t, 4, { failMarker: true });
    const [first = ''] = chunkIds(manifest);
    const before = t.emulator.counters.creditsCharged;
    await expectError(await processChunk(t, first), 422, 'extraction_failed');
    await expectError(await processChunk(t, first), 422, 'extraction_failed');
    expect(t.emulator.counters.creditsCharged).toBe(before);
    const result = await json(await collect(t, manifest.job_id));
    expect(result).toMatchObject({ status: 'partial', failed_pages: [1, 2, 3], pending_pages: [4], chunks_done: 0 });
  });

  it('gives 410 chunk_source_lost for pending chunks after the source is lost, but still replays done ones', async () => {
    const manifest = await uploadSplit(t, 6);
    const [first = '', second = ''] = chunkIds(manifest);
    await processChunk(t, first);
    t.emulator.loseChunkSource(manifest.job_id);
    await expectError(await processChunk(t, second), 410, 'chunk_source_lost');
    expect((await json(await processChunk(t, first))).code).toBe('chunk_already_processed');
  });
});

describe('single-flight claims', () => {
  it('answers 409 while another request holds the claim, and lets a stale claim be taken over', async () => {
    // The first process answer is held until the test lets it go: the second request surely meets its claim
    // (a real 300 ms latency once made the 409 depend on the second request arriving in time).
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const slow = await startTestEmulator({
      holdAnswer: (endpoint) => (endpoint === 'process' && holding ? ((holding = false), held) : undefined),
      claimTimeoutMs: 120_000,
    });
    try {
      const [chunk = ''] = chunkIds(await uploadSplit(slow, 4));
      const processedBefore = slow.emulator.counters.requestsByEndpoint.process;
      const holder = processChunk(slow, chunk);
      // Counted on arrival; the claim follows within the same tick.
      await waitFor(() => slow.emulator.counters.requestsByEndpoint.process > processedBefore, 'the process request counted');
      await expectError(await processChunk(slow, chunk), 409, 'chunk_in_progress');
      slow.clock.advance(120_000);
      const takeover = processChunk(slow, chunk);
      release();
      const codes = [(await json(await holder)).code, (await json(await takeover)).code];
      expect(codes).toEqual(['chunk_processed', 'chunk_already_processed']);
      expect(slow.emulator.counters.creditsCharged).toBe(3);
    } finally {
      await slow.emulator.close();
    }
  });
});

describe("a test's hold on one document (holdDocument)", () => {
  it("holds that document's process and result, their work included, and no other document's; releasing lets both finish", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const heldShas = new Set<string>();
    const asked: string[] = [];
    const held = await startTestEmulator({
      holdDocument: (endpoint, sha256) => {
        asked.push(endpoint);
        return heldShas.has(sha256) && endpoint !== 'documents' ? released : undefined;
      },
    });
    const events: EmulatorEvent[] = [];
    held.emulator.events.on('event', (event: EmulatorEvent) => events.push(event));
    try {
      const a = await uploadSplit(held, 4);
      const b = await uploadSplit(held, 5);
      const shaOf = (jobId: string): string => events.find((event) => event.type === 'split' && event.jobId === jobId)?.sha256 ?? '';
      heldShas.add(shaOf(a.job_id));
      const processedBefore = held.emulator.counters.requestsByEndpoint.process;
      const resultsBefore = held.emulator.counters.requestsByEndpoint.result;
      const heldChunk = processChunk(held, chunkIds(a)[0] ?? '');
      // A plain collect: a finalize released beside the chunk could delete the job before the chunk's work.
      const heldCollect = collect(held, a.job_id);
      await waitFor(
        () => held.emulator.counters.requestsByEndpoint.process > processedBefore && held.emulator.counters.requestsByEndpoint.result > resultsBefore,
        'both requests about the held document counted',
      );
      // The other document goes through meanwhile: the hold names one document.
      expect((await json(await processChunk(held, chunkIds(b)[0] ?? ''))).code).toBe('chunk_processed');
      expect((await json(await collect(held, b.job_id))).chunks_done).toBe(1);
      // Nothing of the held document's work was done: no chunk of it processed, charged or finalized.
      expect(events.filter((event) => event.sha256 === shaOf(a.job_id)).map((event) => event.type)).toEqual(['upload', 'split']);
      expect(held.emulator.counters.creditsCharged).toBe(3);
      expect(asked.slice(0, 2)).toEqual(['documents', 'documents']);
      expect(asked.slice(2).sort()).toEqual(['process', 'process', 'result', 'result']);

      release();
      expect((await json(await heldChunk)).code).toBe('chunk_processed');
      expect((await json(await heldCollect)).job_id).toBe(a.job_id);
      expect(
        events
          .filter((event) => event.sha256 === shaOf(a.job_id))
          .map((event) => event.type)
          .sort(),
      ).toEqual(['chunk_processed', 'collect', 'split', 'upload']);
      expect(held.emulator.counters.creditsCharged).toBe(6);
    } finally {
      await held.emulator.close();
    }
  });
});

describe('GET result', () => {
  it('needs a job_id, and answers 404 for a chunk id', async () => {
    await expectError(await fetch(`${t.url}/v3.1/result`, { headers: bearer(t.key) }), 400, 'invalid_request');
    const manifest = await uploadSplit(t, 4);
    await expectError(await collect(t, manifest.data[0]?.job_id ?? ''), 404, 'job_not_found');
  });

  it('is a pure read reporting pending pages, then complete with every page in order', async () => {
    const manifest = await uploadSplit(t, 8);
    const ids = chunkIds(manifest);
    const empty = await json(await collect(t, manifest.job_id));
    expect(empty).toMatchObject({
      success: true,
      job_id: manifest.job_id,
      status: 'partial',
      pages_total: 8,
      pages_processed: 0,
      chunks_done: 0,
      chunks_total: 3,
      credits_used: 0,
      pending_pages: [1, 2, 3, 4, 5, 6, 7, 8],
    });
    expect(empty).not.toHaveProperty('failed_pages');
    expect(empty.data.pages).toEqual([]);

    await processChunk(t, ids[2] ?? '');
    const partial = await json(await collect(t, manifest.job_id));
    expect(partial).toMatchObject({ status: 'partial', pages_processed: 2, pending_pages: [1, 2, 3, 4, 5, 6], credits_used: 2 });
    expect(partial.data.pages.map((p: { page: number }) => p.page)).toEqual([7, 8]);

    await Promise.all([processChunk(t, ids[1] ?? ''), processChunk(t, ids[0] ?? '')]);
    const complete = await json(await collect(t, manifest.job_id));
    expect(complete).toMatchObject({ status: 'complete', pages_total: 8, pages_processed: 8, chunks_done: 3, credits_used: 8 });
    for (const absent of ['pending_pages', 'failed_pages', 'warnings', 'finalized']) expect(complete).not.toHaveProperty(absent);
    const sha = complete.data.source_sha256;
    expect(complete.data.page_count).toBe(8);
    expect(complete.data.pages.map((p: { page: number; fingerprint: string }) => p.fingerprint)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => pageFingerprint(sha, n)),
    );
    expect(Date.parse(complete.expires_at)).toBe(Date.parse(manifest.expires_at));
  });

  it('warns mixed_models when completed chunks used different templates', async () => {
    const manifest = await uploadSplit(t, 6);
    const [first = '', second = ''] = chunkIds(manifest);
    await processChunk(t, first, { model: 'bank_statement' });
    expect(await json(await collect(t, manifest.job_id))).not.toHaveProperty('warnings');
    await processChunk(t, second, { model: 'invoice' });
    const result = await json(await collect(t, manifest.job_id));
    expect(result.warnings).toEqual(['mixed_models']);
    expect(result.data.pages[0]).toHaveProperty('transactions');
    expect(result.data.pages[3]).toHaveProperty('line_items');
  });

  it('finalizes: flags the answer, emits finalize before deleting, then every call gives 410 job_expired', async () => {
    const manifest = await uploadSplit(t, 4);
    const ids = chunkIds(manifest);
    await processChunk(t, ids[0] ?? '');
    const seen: EmulatorEvent[] = [];
    const listener = (event: EmulatorEvent): void => {
      seen.push(event);
    };
    t.emulator.events.on('event', listener);
    const finalizedBefore = t.emulator.counters.finalizedJobs;
    const response = await fetch(`${t.url}/v3.1/result?job_id=${manifest.job_id}&finalize=1`, { headers: bearer(t.key) });
    const body = await json(response);
    t.emulator.events.off('event', listener);
    expect(body).toMatchObject({ finalized: true, status: 'partial', pending_pages: [4] });
    expect(seen.map((e) => e.type)).toEqual(['collect', 'finalize']);
    expect(seen[1]?.jobId).toBe(manifest.job_id);
    expect(t.emulator.counters.finalizedJobs).toBe(finalizedBefore + 1);
    await expectError(await collect(t, manifest.job_id), 410, 'job_expired');
    await expectError(await processChunk(t, ids[1] ?? ''), 410, 'job_expired');
    await expectError(await processChunk(t, ids[0] ?? ''), 410, 'job_expired');
  });

  it('expires a job after the TTL on the injected clock, counting it once', async () => {
    // Its own emulator: moving the shared clock by 2 h would also expire the other tests' jobs.
    const own = await startTestEmulator();
    const expired: EmulatorEvent[] = [];
    own.emulator.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'expire') expired.push(event);
    });
    try {
      const manifest = await uploadSplit(own, 4);
      const ids = chunkIds(manifest);
      own.clock.advance(2 * 3600_000 - 1);
      expect((await collect(own, manifest.job_id)).status).toBe(200);
      expect(own.emulator.counters.expiredJobs).toBe(0);
      own.clock.advance(1);
      await expectError(await collect(own, manifest.job_id), 410, 'job_expired');
      await expectError(await processChunk(own, ids[0] ?? ''), 410, 'job_expired');
      await expectError(await collect(own, manifest.job_id), 410, 'job_expired');
      // Three lookups of the expired job, one expiry.
      expect(own.emulator.counters.expiredJobs).toBe(1);
      expect(expired.map((event) => event.jobId)).toEqual([manifest.job_id]);
    } finally {
      await own.emulator.close();
    }
  });

  it('expires a job on demand through the test hook', async () => {
    const manifest = await uploadSplit(t, 4);
    const before = t.emulator.counters.expiredJobs;
    t.emulator.expireJob(manifest.job_id);
    await expectError(await collect(t, manifest.job_id), 410, 'job_expired');
    expect(t.emulator.counters.expiredJobs).toBe(before + 1);
    await expectError(await collect(t, manifest.job_id, { key: newKey() }), 401, 'invalid_api_key');
  });
});

describe('open-job cap', () => {
  it('refuses a sixth open multi-page job with 429 too_many_open_jobs until one is finalized or expires', async () => {
    const capped = await startTestEmulator({ rateLimits: [{ limit: 1000, windowMs: 60_000 }] });
    try {
      const manifests = [];
      for (let i = 0; i < 5; i += 1) manifests.push(await uploadSplit(capped, 4));
      const refused = await uploadSplit(capped, 4).catch((error: Error) => error.message);
      expect(refused).toMatch(/expected 202, got 429.*too_many_open_jobs/);
      expect(capped.emulator.counters.rateLimited).toBe(1);

      const response = await upload(capped, await titledPdf(4));
      expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
      // Neither 429 counted: 5 uploads admitted so far.
      expect(response.headers.get('x-ratelimit-remaining')).toBe('995');
      await expectError(response, 429, 'too_many_open_jobs');
      // Small PDFs and images are not jobs.
      expect((await upload(capped, await titledPdf(3))).status).toBe(200);

      await collect(capped, manifests[0]?.job_id ?? '', { finalize: true });
      expect((await upload(capped, await titledPdf(4))).status).toBe(202);
      capped.clock.advance(2 * 3600_000);
      expect((await upload(capped, await titledPdf(4))).status).toBe(202);
      expect(capped.emulator.counters.expiredJobs).toBe(5);
    } finally {
      await capped.emulator.close();
    }
  });
});

describe('the request log', () => {
  it('names the document each request concerned and the credits it charged', async () => {
    const entries: EmulatorRequestLog[] = [];
    const own = await startTestEmulator({ onRequest: (entry) => entries.push(entry) });
    try {
      const png = pngBytes('request-log');
      expect((await upload(own, png)).status).toBe(200);
      const manifest = await uploadSplit(own, 4);
      for (const chunk of chunkIds(manifest)) await json(await processChunk(own, chunk));
      await json(await processChunk(own, chunkIds(manifest)[0] ?? ''));
      await json(await collect(own, manifest.job_id, { finalize: true }));
      const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
      expect(entries.map(({ endpoint, sha256, credits }) => ({ endpoint, sha256, credits }))).toEqual([
        { endpoint: 'documents', sha256: sha(png), credits: 1 },
        { endpoint: 'documents', sha256: expect.any(String), credits: undefined },
        { endpoint: 'process', sha256: entries[1]?.sha256, credits: 3 },
        { endpoint: 'process', sha256: entries[1]?.sha256, credits: 1 },
        { endpoint: 'process', sha256: entries[1]?.sha256, credits: undefined },
        { endpoint: 'result', sha256: entries[1]?.sha256, credits: undefined },
      ]);
    } finally {
      await own.emulator.close();
    }
  });
});

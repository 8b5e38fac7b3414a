/**
 * Choosing the next request changes nothing: what it settles (skips, a
 * probe, stopping intake) comes back as part of the decision, and only the
 * runner applies it.
 */
import { describe, expect, it } from 'vitest';
import type { PlannedDocument, RunSettings } from '../../../src/batch/batch-types.js';
import { BatchState } from '../../../src/batch/batch-state.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { chooseNextRequest } from '../../../src/batch/next-request.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { RequestGate } from '../../../src/batch/request-gate.js';
import { MemorySendLog } from '../../../src/batch/send-log.js';
import { UploadQueue } from '../../../src/batch/upload-queue.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const SETTINGS: RunSettings = {
  concurrency: 4,
  openJobCap: 5,
  ttlMs: 7_200_000,
  marginMs: 600_000,
  finalize: true,
  storeDb: false,
  maxCredits: 5,
  retryFailed: false,
  maxCollectRounds: 4,
  maxAttempts: 8,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  slotWaitMs: 1_800_000,
  busyPauseMs: 120_000,
  conflictDelayMs: 10_000,
};

function task(name: string, pages: number, type: PlannedDocument['type'] = 'pdf'): DocumentTask {
  return new DocumentTask(
    { path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type, contentType: 'application/pdf', pages, output: `/out/${name}.json` },
    0,
  );
}

function state(settings: RunSettings = SETTINGS): { state: BatchState; finished: string[] } {
  const clock = new FakeClock(1_700_000_000_000);
  const gate = new RequestGate({ windows: parseRateWindows('none'), clock, sendLog: new MemorySendLog() });
  const finished: string[] = [];
  const batch = new BatchState({
    clock,
    settings,
    gate,
    serverBusy: () => undefined,
    phantomJobs: [],
    keepOutcomes: true,
    onStop: () => undefined,
    events: { documentFinished: (outcome) => void finished.push(outcome.file) },
  });
  return { state: batch, finished };
}

describe('chooseNextRequest', () => {
  it('serves an open job before any upload', () => {
    const { state: batch } = state();
    const open = task('open.pdf', 4);
    open.openJob({
      parentJobId: 'job_p',
      chunks: [
        { jobId: 'job_c1', pages: '1-3' },
        { jobId: 'job_c2', pages: '4-4' },
      ],
      expiresAt: Date.now() + 7_200_000,
      pages: 4,
      model: null,
    });
    batch.take([task('a.png', 1, 'png'), open]);
    const next = chooseNextRequest(batch, 1_700_000_000_000);
    expect(next.item).toMatchObject({ kind: 'process', task: open });
  });

  it('hands back the documents a budget skips, without finishing them, and sends the next that fits', () => {
    const { state: batch, finished } = state();
    const big = task('big.pdf', 9);
    const small = task('small.png', 1, 'png');
    batch.take([big, small]);
    batch.stops.budgetExhausted('insufficient_credits', 'the service refused x', 9);
    const next = chooseNextRequest(batch, 1_700_000_000_000);
    expect(next.skips.map((skip) => skip.task)).toEqual([big]);
    expect(next.item).toMatchObject({ kind: 'upload', task: small });
    // Nothing changed yet: the runner applies the decision.
    expect(big.phase).toBe('queued');
    expect(finished).toEqual([]);
    batch.skipped(next.skips);
    expect(finished).toEqual(['big.pdf']);
  });

  it('asks intake to stop once no upload can be admitted, and chooses nothing', () => {
    const { state: batch } = state();
    batch.take([task('a.png', 1, 'png')]);
    batch.stops.outputUnwritable('output_write_failed', 'cannot write');
    const next = chooseNextRequest(batch, 1_700_000_000_000);
    expect(next.item).toBeUndefined();
    expect(next.stopIntake).toMatchObject({ code: 'output_write_failed' });
    batch.intakeClosed = true;
    expect(chooseNextRequest(batch, 1_700_000_000_000).stopIntake).toBeUndefined();
  });
});

describe('chooseNextRequest and --max-credits', () => {
  it('asks intake to stop in the choice that finds the budget passed, not at the next arrival (a watch may see none)', () => {
    const { state: batch } = state({ ...SETTINGS, maxCredits: 3 });
    batch.take([task('four.pdf', 4), task('one.pdf', 1)]);
    const next = chooseNextRequest(batch, 1_700_000_000_000);
    expect(next.item).toBeUndefined();
    expect(next.stopIntake).toMatchObject({ code: 'max_credits_reached' });
  });
});

describe('UploadQueue skip verdict', () => {
  it('moves past a plain document the caller will settle, without waiting on it', () => {
    const a = task('a.png', 1, 'png');
    const b = task('b.png', 1, 'png');
    const queue = new UploadQueue([a, b]);
    expect(
      queue.next(
        0,
        (t) => (t === a ? 'skip' : 'send'),
        () => undefined,
      ),
    ).toBe(b);
    // A plain document judged `next` while still queued holds the queue (it waits, rather than spin).
    expect(
      queue.next(
        0,
        () => 'next',
        () => undefined,
      ),
    ).toBeUndefined();
  });
});

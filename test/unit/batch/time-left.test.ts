import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { projectSendTimes } from '../../../src/batch/rate-windows.js';
import { TimeLeft, windowName } from '../../../src/batch/time-left.js';
import { moveJob } from '../../../src/batch/job-phase.js';

function task(pages: number | undefined, name = 'a.pdf'): DocumentTask {
  const doc: PlannedDocument = {
    path: `/in/${name}`,
    displayPath: name,
    sha256: 'x'.repeat(64),
    size: 1,
    type: 'pdf',
    contentType: 'application/pdf',
    pages,
    output: `/out/${name}.json`,
  };
  return new DocumentTask(doc, 0);
}

describe('requests a document still needs', () => {
  it('counts upload, chunks, collect and finalize, and less as the job moves on', () => {
    expect(task(1).requestsLeft(true)).toBe(1);
    expect(task(12).requestsLeft(true)).toBe(1 + 4 + 1 + 1);
    expect(task(12).requestsLeft(false)).toBe(1 + 4 + 1);
    const open = task(12);
    open.openJob(
      { parentJobId: 'p', chunks: ['1-3', '4-6', '7-9', '10-12'].map((pages, i) => ({ jobId: `c${i}`, pages })), expiresAt: 1, pages: 12, model: null },
      new Map([['c0', 3]]),
    );
    expect(open.requestsLeft(true)).toBe(3 + 1 + 1);
    if (open.job) {
      moveJob(open.job, 'collect-sent');
      moveJob(open.job, 'wrote-complete');
    }
    expect(open.requestsLeft(true)).toBe(1);
    open.phase = 'done';
    expect(open.requestsLeft(true)).toBe(0);
  });
});

describe('TimeLeft', () => {
  const windows = parseRateWindows('10/min,100/h');
  const slots = (n: number): number[] => projectSendTimes([], 0, windows, 0, n, 0);

  it("is the last of the slots the requests left would take; the summary's bound is for the requests sent, from the first slots", () => {
    const left = new TimeLeft(slots, true);
    expect(left.boundForMs(24)).toBeUndefined();
    // 1 + 1 + (1 + 19 + 2) = 24 requests: 10 now, 10 at 1 min, the last 4 at 2 min.
    expect(left.update([task(1), task(1, 'b'), task(57, 'c')], 0)).toBe(120_000);
    expect(left.boundForMs(24)).toBe(120_000);
    expect(left.update([task(1)], 500)).toBeUndefined(); // at most once a second
    expect(left.update([task(1)], 500, true)).toBe(0);
    expect(left.boundForMs(24)).toBe(120_000);
  });

  it("an interrupted run that sent 12 of the 24 requests: the rate limits allowed it 1 min, not the batch's 2 min (issue 52)", () => {
    const left = new TimeLeft(slots, true);
    left.update([task(1), task(1, 'b'), task(57, 'c')], 0);
    expect(left.boundForMs(12)).toBe(60_000);
    expect(left.boundForMs(10)).toBe(0);
    expect(left.boundForMs(0)).toBeUndefined();
    // More sent than first projected (retries, documents that came later): the last slot, still a lower bound.
    expect(left.boundForMs(30)).toBe(120_000);
  });

  it('works the bound out again once a full second has passed, not before', () => {
    const left = new TimeLeft(slots, true);
    expect(left.update([task(1)], 10_000)).toBe(0);
    expect(left.update([task(1)], 10_999)).toBeUndefined();
    expect(left.update([task(1)], 11_000)).toBe(0);
  });

  it('with nothing left, the bound is 0 and asks for no slots; the batch bound waits for the first document', () => {
    const asked: number[] = [];
    const left = new TimeLeft((n) => (asked.push(n), slots(n)), true);
    expect(left.update([], 0)).toBe(0);
    expect(asked).toEqual([]);
    expect(left.boundForMs(22)).toBeUndefined();
    expect(left.update([task(57)], 1_000)).toBe(120_000 - 1_000);
    expect(left.boundForMs(22)).toBe(119_000);
  });

  it('names windows as people do', () => {
    expect(parseRateWindows('10/min,100/h,1000/d,10000/mo,8/1s,60/12s').map(windowName)).toEqual([
      'per-minute window (10/min)',
      'hourly window (100/h)',
      'daily window (1000/d)',
      'monthly window (10000/mo)',
      'per-second window (8/1s)',
      'rate window (60/12s)',
    ]);
  });
});

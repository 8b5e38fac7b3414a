import { describe, expect, it } from 'vitest';
import type { RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { OpenJobLedger, type Phantom } from '../../../src/batch/open-job-ledger.js';
import { moveJob } from '../../../src/batch/job-phase.js';

const HOUR = 3_600_000;
const SETTINGS = { openJobCap: 2, ttlMs: 2 * HOUR, marginMs: 60_000, finalize: true } as RunSettings;
const freeSlots = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

function splitTask(name: string, pages: number): DocumentTask {
  return new DocumentTask(
    { path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type: 'pdf', contentType: 'application/pdf', pages, output: `/out/${name}.json` },
    0,
  );
}

function openTask(name: string, expiresAt: number): DocumentTask {
  const task = splitTask(name, 6);
  task.openJob({
    parentJobId: `job-${name}`,
    chunks: [
      { jobId: `c1-${name}`, pages: '1-3' },
      { jobId: `c2-${name}`, pages: '4-6' },
    ],
    expiresAt,
    pages: 6,
    model: null,
  });
  return task;
}

function phantoms(...until: number[]): Phantom[] {
  return until.map((ms) => ({ until: ms }));
}

describe('OpenJobLedger', () => {
  it('counts each open job with the requests it still needs: chunks, collect, finalize', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    const task = openTask('a', HOUR);
    ledger.open.add(task);
    expect(ledger.loads(0)).toEqual([{ id: 'job-a', expiresAtMs: HOUR, requestsLeft: 4 }]);
    (task.job?.chunks[0] as { status: string }).status = 'done';
    expect(ledger.loads(0)[0]?.requestsLeft).toBe(3);
  });

  it('refuses an upload once the cap is reached by jobs it knows are open', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.open.add(openTask('a', HOUR));
    ledger.open.add(openTask('b', HOUR));
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
  });

  it('does not let mere phantoms stall the batch until they expire, until the server says it is full', () => {
    const ledger = new OpenJobLedger(SETTINGS, phantoms(HOUR, HOUR));
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(true);
    ledger.lowerCap(0);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
    expect(ledger.earliestRelief(0)).toBe(1000);
    expect(ledger.loads(HOUR + 1)).toEqual([]);
  });

  it('journaled jobs of an earlier run filling the cap do block: they are known to be open, not a maybe', () => {
    const ledger = new OpenJobLedger(SETTINGS, [
      { until: HOUR, jobId: 'job_a' },
      { until: HOUR, jobId: 'job_b' },
    ]);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
    const mixed = new OpenJobLedger(SETTINGS, [{ until: HOUR, jobId: 'job_a' }, { until: HOUR }]);
    expect(mixed.admits(splitTask('c', 9), 0, freeSlots)).toBe(true); // one of the two is only a maybe
  });

  it('counts the open jobs served ahead of a candidate: it fits alone, but not behind them', () => {
    // One slot every 2.2 min. A 150-page PDF needs 53 requests: alone its last one lands at
    // 52 x 2.2 = 114.4 min, inside its 2 h TTL less the 1 min margin; behind an open job's
    // 4 requests (served first: it expires first) it lands at 56 x 2.2 = 123.2 min, too late.
    const slots = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i * 132_000);
    const alone = new OpenJobLedger({ ...SETTINGS, openJobCap: 5 }, []);
    expect(alone.admits(splitTask('big', 150), 0, slots)).toBe(true);
    const behind = new OpenJobLedger({ ...SETTINGS, openJobCap: 5 }, []);
    behind.open.add(openTask('a', 10 * 60_000));
    expect(behind.admits(splitTask('big', 150), 0, slots)).toBe(false);
  });
});

function imageTask(name: string): DocumentTask {
  return new DocumentTask(
    { path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type: 'png', contentType: 'image/png', pages: 1, output: `/out/${name}.json` },
    0,
  );
}

function uncountedPdf(name: string): DocumentTask {
  return new DocumentTask(
    {
      path: `/in/${name}`,
      displayPath: name,
      sha256: name,
      size: 1,
      type: 'pdf',
      contentType: 'application/pdf',
      pages: undefined,
      output: `/out/${name}.json`,
    },
    0,
  );
}

describe('OpenJobLedger: what admission counts', () => {
  it('serves open jobs earliest expiry first, a task that has no job yet ahead of all', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    const late = openTask('late', 2 * HOUR);
    const early = openTask('early', HOUR);
    const noJob = splitTask('nojob', 6);
    for (const task of [late, noJob, early]) ledger.open.add(task);
    expect(ledger.byExpiry().map((task) => task.doc.displayPath)).toEqual(['nojob', 'early', 'late']);
    // The set itself keeps its order: byExpiry sorts a copy.
    expect([...ledger.open].map((task) => task.doc.displayPath)).toEqual(['late', 'nojob', 'early']);
  });

  it('skips a task in the open set that has no job yet', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.open.add(splitTask('nojob', 6));
    ledger.open.add(openTask('a', HOUR));
    expect(ledger.loads(0)).toEqual([{ id: 'job-a', expiresAtMs: HOUR, requestsLeft: 4 }]);
  });

  it('a job whose result is written needs only its finalize (none when partial, none under --no-finalize)', () => {
    const complete = openTask('complete', HOUR);
    moveJob(complete.job!, 'collect-sent');
    moveJob(complete.job!, 'wrote-complete');
    const partial = openTask('partial', HOUR);
    moveJob(partial.job!, 'collect-sent');
    moveJob(partial.job!, 'wrote-partial');
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.open.add(complete);
    ledger.open.add(partial);
    expect(ledger.loads(0).map((load) => load.requestsLeft)).toEqual([1, 0]);
    const noFinalize = new OpenJobLedger({ ...SETTINGS, finalize: false }, []);
    noFinalize.open.add(complete);
    noFinalize.open.add(openTask('fresh', HOUR));
    expect(noFinalize.loads(0).map((load) => load.requestsLeft)).toEqual([0, 3]);
  });

  it('an upload in flight that may open a job holds a slot until its answer: a TTL from its start and the rest of its requests', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    const nine = splitTask('p9.pdf', 9); // 1 upload + 3 chunks + collect + finalize
    const uncounted = uncountedPdf('u.pdf');
    const image = imageTask('img.png');
    ledger.uploadStarted(nine, 1000);
    ledger.uploadStarted(uncounted, 2000);
    ledger.uploadStarted(image, 3000);
    expect(ledger.loads(5000)).toEqual([
      { id: '/in/p9.pdf', expiresAtMs: 1000 + 2 * HOUR, requestsLeft: 5 },
      { id: '/in/u.pdf', expiresAtMs: 2000 + 2 * HOUR, requestsLeft: 0 },
    ]);
    ledger.uploadEnded(nine);
    ledger.uploadEnded(image);
    expect(ledger.loads(5000).map((load) => load.id)).toEqual(['/in/u.pdf']);
  });

  it('counts phantoms, given or added, until they expire; one that has expired by now is not added', () => {
    const ledger = new OpenJobLedger(SETTINGS, phantoms(HOUR));
    ledger.addPhantom(2 * HOUR, 1000);
    ledger.addPhantom(1000, 1000);
    ledger.addPhantom(500, 1000);
    expect(ledger.loads(1000)).toEqual([
      { id: 'phantom-0', expiresAtMs: HOUR, requestsLeft: 0 },
      { id: 'phantom-1', expiresAtMs: 2 * HOUR, requestsLeft: 0 },
    ]);
    // At its expiry instant a phantom no longer holds a slot.
    expect(ledger.loads(HOUR)).toEqual([{ id: 'phantom-0', expiresAtMs: 2 * HOUR, requestsLeft: 0 }]);
    expect(ledger.loads(2 * HOUR)).toEqual([]);
  });

  it('counts a journaled job once: as a phantom until this run takes it up, then as its own open job', () => {
    const resumed = splitTask('resumed.pdf', 9);
    resumed.openJob({ parentJobId: 'job_old', chunks: [{ jobId: 'c1', pages: '1-3' }], expiresAt: HOUR, pages: 9, model: null });
    const ledger = new OpenJobLedger(SETTINGS, [{ until: HOUR, jobId: 'job_old' }, { until: HOUR, jobId: 'job_other' }, { until: 2 * HOUR }]);
    expect(ledger.loads(0).map((load) => load.id)).toEqual(['job_old', 'job_other', 'phantom-2']);
    ledger.open.add(resumed);
    expect(ledger.loads(0)).toEqual([
      { id: 'job_old', expiresAtMs: HOUR, requestsLeft: 3 },
      { id: 'job_other', expiresAtMs: HOUR, requestsLeft: 0 },
      { id: 'phantom-1', expiresAtMs: 2 * HOUR, requestsLeft: 0 },
    ]);
    // Finished and gone from the run, it holds no slot, and its phantom does not come back.
    ledger.open.delete(resumed);
    expect(ledger.loads(0)).toHaveLength(2);
  });

  it('keeps its own copy of the phantoms it is given', () => {
    const given = phantoms(HOUR);
    const ledger = new OpenJobLedger(SETTINGS, given);
    given.push({ until: 2 * HOUR });
    expect(ledger.loads(0)).toHaveLength(1);
  });

  it('looks again when the next phantom expires, or a second from now at the latest', () => {
    const ledger = new OpenJobLedger(SETTINGS, phantoms(400, 1000, 1500, 5000));
    expect(ledger.earliestRelief(1000)).toBe(1500);
    expect(ledger.earliestRelief(1500)).toBe(2500);
    expect(new OpenJobLedger(SETTINGS, []).earliestRelief(7)).toBe(1007);
  });
});

describe('OpenJobLedger: the cap', () => {
  it('lowers the cap to the jobs it knows of, never below 0 nor above the cap, and says how many slots others hold', () => {
    const ledger = new OpenJobLedger({ ...SETTINGS, openJobCap: 5 }, []);
    expect(ledger.openJobCap).toBe(5);
    expect(ledger.heldByOthers).toBe(0);
    ledger.open.add(openTask('a', HOUR));
    ledger.open.add(openTask('b', HOUR));
    expect(ledger.lowerCap(0)).toBe(2);
    expect(ledger.openJobCap).toBe(2);
    expect(ledger.heldByOthers).toBe(3);
    ledger.open.clear();
    expect(ledger.lowerCap(0)).toBe(0);
    expect(ledger.heldByOthers).toBe(5);

    const crowded = new OpenJobLedger(SETTINGS, phantoms(HOUR, HOUR, HOUR));
    expect(crowded.lowerCap(0)).toBe(2);
  });

  it('a probe accepted past the cap gives one slot back, up to the configured cap', () => {
    const ledger = new OpenJobLedger({ ...SETTINGS, openJobCap: 3 }, []);
    ledger.lowerCap(0);
    ledger.raiseCap();
    expect(ledger.openJobCap).toBe(1);
    expect(ledger.heldByOthers).toBe(2);
    ledger.raiseCap();
    ledger.raiseCap();
    ledger.raiseCap();
    expect(ledger.openJobCap).toBe(3);
  });

  it('lets a probe ask for one slot more than it believes free', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.lowerCap(0);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots, 1)).toBe(true);
  });

  it('once the server said full, a raised cap with room still admits', () => {
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.open.add(openTask('a', HOUR));
    ledger.lowerCap(0);
    ledger.raiseCap();
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(true);
  });

  it('phantoms filling the cap do not block one upload at a time, but do while a split upload is in flight', () => {
    const ledger = new OpenJobLedger(SETTINGS, phantoms(HOUR, HOUR));
    const image = imageTask('img.png');
    ledger.uploadStarted(image, 0);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(true);
    ledger.uploadStarted(splitTask('b', 9), 0);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
  });

  it('a PDF it could not count meets only the cap, not the deadlines', () => {
    // One open job whose 4 requests land just in time on slots 0..3; any upload sent first would push it late.
    const expiresAt = 3 * 60_000 + SETTINGS.marginMs + 1;
    const slots = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i * 60_000);
    const ledger = new OpenJobLedger(SETTINGS, []);
    ledger.open.add(openTask('a', expiresAt));
    expect(ledger.admits(splitTask('c', 6), 0, slots)).toBe(false);
    expect(ledger.admits(uncountedPdf('u.pdf'), 0, slots)).toBe(true);
    ledger.open.add(openTask('b', 2 * HOUR));
    expect(ledger.admits(uncountedPdf('u.pdf'), 0, slots)).toBe(false);
  });
});

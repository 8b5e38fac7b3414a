import { describe, expect, it } from 'vitest';
import {
  decideAdmission,
  fitsWithinTtl,
  minimumMakespanMs,
  requestsForDocument,
  requestsToFinish,
  type AdmissionInput,
  type OpenJobLoad,
} from '../../../src/batch/admission.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { findSetting } from '../../../src/config/settings.js';

import { AnsweredAtOnceGate } from '../../helpers/answered-gate.js';
import { MemorySendLog } from '../../../src/batch/send-log.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** The service's default per-key windows, as the settings table has them. */
const DEFAULT_RATE_LIMITS = findSetting('rate-limit')?.default ?? '';

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const TTL = 2 * HOUR;
const MARGIN = 5 * MIN;

describe('requestsForDocument', () => {
  it.each([
    [undefined, 1],
    [1, 1],
    [3, 1],
    [4, 1 + 2 + 2],
    [6, 1 + 2 + 2],
    [7, 1 + 3 + 2],
    [150, 53],
  ])('a document of %s pages costs %i requests', (pages, requests) => {
    expect(requestsForDocument(pages)).toBe(requests);
  });

  it('follows other chunk sizes and thresholds', () => {
    expect(requestsForDocument(10, 5, 5)).toBe(1 + 2 + 2);
    expect(requestsForDocument(5, 5, 5)).toBe(1);
  });
});

/** A fresh gate under `spec`, with `sent` requests already in its log at T0. */
function projection(spec: string, sent = 0): AdmissionInput['projectSlots'] {
  const gate = new AnsweredAtOnceGate({
    windows: parseRateWindows(spec),
    clock: new FakeClock(T0),
    sendLog: new MemorySendLog(Array(sent).fill(T0)),
  });
  return (n, from) => gate.projectSlots(n, from);
}

function input(overrides: Partial<AdmissionInput>): AdmissionInput {
  return {
    nowMs: T0,
    projectSlots: projection(DEFAULT_RATE_LIMITS),
    openJobs: [],
    candidateRequests: 53,
    ttlMs: TTL,
    marginMs: MARGIN,
    openJobCap: 5,
    ...overrides,
  };
}

const job = (id: string, expiresInMs: number, requestsLeft: number): OpenJobLoad => ({
  id,
  expiresAtMs: T0 + expiresInMs,
  requestsLeft,
});

describe('requestsToFinish', () => {
  it.each([
    [undefined, true, 1],
    [undefined, false, 1], // an uncounted PDF needs its upload, finalize or not (it once counted 0 here and 1 in the dry run)
    [1, false, 1],
    [3, true, 1],
    [4, true, 5],
    [4, false, 4],
    [150, false, 52],
  ])('a document of %s pages, finalize %s: %i requests', (pages, finalize, requests) => {
    expect(requestsToFinish(pages, finalize)).toBe(requests);
  });

  it('is what a task not yet uploaded has left, so the engine and the dry run agree', () => {
    for (const pages of [undefined, 1, 3, 4, 7, 150]) {
      for (const finalize of [true, false]) {
        const task = new DocumentTask(
          {
            path: '/in/a.pdf',
            displayPath: 'a.pdf',
            sha256: 'a'.repeat(64),
            size: 10,
            type: 'pdf',
            contentType: 'application/pdf',
            pages,
            output: '/out/a.pdf.json',
          },
          0,
        );
        expect(task.requestsLeft(finalize)).toBe(requestsToFinish(pages, finalize));
      }
    }
  });
});

describe('decideAdmission', () => {
  it.each<[string, Partial<AdmissionInput>, ReturnType<typeof decideAdmission>['admit'], string?]>([
    ['an empty schedule', {}, true],
    ['a full cap of open jobs', { openJobs: [1, 2, 3, 4, 5].map((i) => job(`j${i}`, HOUR, 0)) }, false, 'open_job_cap'],
    ['four open jobs and one that expired', { openJobs: [...[1, 2, 3, 4].map((i) => job(`j${i}`, HOUR, 0)), job('old', -1, 0)] }, true],
    ['a phantom "possibly open" job that still holds a cap slot', { openJobs: [job('phantom', HOUR, 0)], openJobCap: 1 }, false, 'open_job_cap'],
    ['a cap lowered after too_many_open_jobs', { openJobs: [job('a', HOUR, 2), job('b', HOUR, 2)], openJobCap: 2 }, false, 'open_job_cap'],
    [
      'a synchronous document when the cap is full (it opens no job)',
      { openJobs: [1, 2, 3, 4, 5].map((i) => job(`j${i}`, HOUR, 0)), candidateRequests: 1 },
      true,
    ],
    [
      // Alone, j1's 50 requests end at 4 min (10/min); behind the candidate's
      // upload the last lands at 5 min + 5 guards (250 ms), past expiry − margin.
      'a candidate that would make an open job miss its expiry',
      { openJobs: [job('j1', 5 * MIN + MARGIN + 100, 50)] },
      false,
      'deadline',
    ],
    ['the same candidate when that job has time to spare', { openJobs: [job('j1', 30 * MIN, 50)] }, true],
    ['a candidate that cannot finish itself under 10/h', { projectSlots: projection('10/h') }, false, 'deadline'],
    [
      // j1 misses whatever we do; it must not block work that fits.
      'a job already doomed without the candidate',
      { openJobs: [job('doomed', 2 * MIN, 30)], candidateRequests: 5 },
      true,
    ],
    ['a budget already spent this hour', { projectSlots: projection(DEFAULT_RATE_LIMITS, 100) }, true],
    // The upload waits for the budget, and the TTL only starts at the upload.
    ['a budget already spent today', { projectSlots: projection(DEFAULT_RATE_LIMITS, 1000) }, true],
    [
      // The hour is spent: the next 10 slots open at 1 h, the 11th a minute later.
      // j1's 10 requests fit in that burst alone, but not behind the candidate's upload.
      'a spent hour that leaves no room for the candidate ahead of an open job',
      { projectSlots: projection(DEFAULT_RATE_LIMITS, 100), openJobs: [job('j1', HOUR + MARGIN + 1_000, 10)], candidateRequests: 5 },
      false,
      'deadline',
    ],
    [
      'the same open job without the candidate squeezing in',
      { projectSlots: projection(DEFAULT_RATE_LIMITS, 100), openJobs: [job('j1', HOUR + MARGIN + 61_000, 10)], candidateRequests: 5 },
      true,
    ],
  ])('%s', (_name, overrides, admit, reason) => {
    const decision = decideAdmission(input(overrides));
    expect(decision.admit).toBe(admit);
    if (!decision.admit) expect(decision.reason).toBe(reason);
  });

  it('names the job that would be late and when', () => {
    const decision = decideAdmission(input({ openJobs: [job('j1', 5 * MIN + MARGIN + 100, 50)] }));
    expect(decision).toMatchObject({ admit: false, reason: 'deadline' });
    expect(!decision.admit && decision.detail).toMatch(/^j1 would send its last request at 2023-11-14T22:18:20\.250Z, after its expiry/);
  });

  it('says how many jobs fill the cap', () => {
    expect(decideAdmission(input({ openJobs: [job('a', HOUR, 2), job('b', HOUR, 2)], openJobCap: 2 }))).toEqual({
      admit: false,
      reason: 'open_job_cap',
      detail: '2 multi-page jobs are open and the cap is 2',
    });
  });

  it('a job that expires at this very instant no longer holds a slot', () => {
    expect(decideAdmission(input({ openJobs: [job('a', 0, 0)], openJobCap: 1 })).admit).toBe(true);
  });

  /** One slot a minute, from `from`: round numbers for deadline arithmetic. */
  const everyMinute: AdmissionInput['projectSlots'] = (n, from = T0) => Array.from({ length: n }, (_, i) => from + i * MIN);

  it('serves open jobs earliest expiry first, whatever order they are listed in, and a last request at expiry less the margin is late', () => {
    // b's 10 requests end at 9 min alone, at 10 min behind the candidate's upload: exactly its expiry less the margin.
    const a = job('a', 2 * HOUR, 10);
    const b = job('b', 10 * MIN + MARGIN, 10);
    const decision = decideAdmission(input({ projectSlots: everyMinute, openJobs: [a, b], candidateRequests: 5 }));
    expect(decision).toEqual({
      admit: false,
      reason: 'deadline',
      detail: `b would send its last request at ${new Date(T0 + 10 * MIN).toISOString()}, after its expiry ${new Date(T0 + 10 * MIN + MARGIN).toISOString()} less the ${MARGIN} ms margin`,
    });
    expect(decideAdmission(input({ projectSlots: everyMinute, openJobs: [a, { ...b, expiresAtMs: b.expiresAtMs + 1 }], candidateRequests: 5 })).admit).toBe(
      true,
    );
  });

  it('names the candidate when it is the one that would be late, and "never" when no slot comes', () => {
    const tooSlow = decideAdmission(input({ projectSlots: projection('10/h') }));
    expect(!tooSlow.admit && tooSlow.detail).toMatch(/^the candidate would send its last request at 2023-11-15T03:13:20\.\d{3}Z, after its expiry/);
    const noSlots = decideAdmission(input({ projectSlots: () => [] }));
    expect(!noSlots.admit && noSlots.detail).toBe(
      `the candidate would send its last request at never, after its expiry ${new Date(T0 + TTL).toISOString()} less the ${MARGIN} ms margin`,
    );
  });

  it('refuses the 4th of five 150-page PDFs under 100/h: they cannot all finish in 2 h', async () => {
    const clock = new FakeClock(T0);
    const gate = new AnsweredAtOnceGate({ windows: parseRateWindows(DEFAULT_RATE_LIMITS), clock });
    const open: OpenJobLoad[] = [];
    const decisions: boolean[] = [];
    for (let i = 1; i <= 5; i++) {
      const decision = decideAdmission({
        nowMs: clock.now(),
        projectSlots: (n, from) => gate.projectSlots(n, from),
        openJobs: open,
        candidateRequests: requestsForDocument(150),
        ttlMs: TTL,
        marginMs: MARGIN,
        openJobCap: 5,
      });
      decisions.push(decision.admit);
      if (!decision.admit) continue;
      await gate.acquire(); // the upload
      open.push({ id: `pdf${i}`, expiresAtMs: clock.now() + TTL, requestsLeft: 52 });
    }
    // 100/h gives 200 requests in the first two hours: 3 × 53 fit, 4 × 53 do not.
    expect(decisions).toEqual([true, true, true, false, false]);

    // And the three admitted really do finish in time when served earliest-expiry-first.
    const sent: number[] = [];
    const work = open.flatMap((j) => Array.from({ length: j.requestsLeft }, () => gate.acquire().then(() => sent.push(clock.now()))));
    await clock.runAll();
    await Promise.all(work);
    expect(Math.max(...sent)).toBeLessThan(T0 + TTL - MARGIN);
  });
});

describe('fitsWithinTtl', () => {
  it.each([
    [150, DEFAULT_RATE_LIMITS, true],
    [150, '10/h', false],
    [150, '27/h', true], // 53 requests: two hours' worth, the last at 1 h
    [150, '26/h', false], // the 53rd would fall at 2 h
    [3, '1/d', true], // synchronous: one request
    [150, 'none', true],
  ])('%i pages under %s: %s', (pages, spec, fits) => {
    expect(fitsWithinTtl(pages, parseRateWindows(spec), TTL, MARGIN)).toBe(fits);
  });

  it('a synchronous document fits whatever the TTL: it opens no job', () => {
    expect(fitsWithinTtl(3, parseRateWindows(DEFAULT_RATE_LIMITS), 0, MARGIN)).toBe(true);
  });

  it('the last request must go strictly before the expiry less the margin', () => {
    // Without limits every request goes at once, at 0.
    expect(fitsWithinTtl(150, parseRateWindows('none'), MARGIN, MARGIN)).toBe(false);
    expect(fitsWithinTtl(150, parseRateWindows('none'), MARGIN + 1, MARGIN)).toBe(true);
  });
});

describe('minimumMakespanMs', () => {
  it.each([
    [0, DEFAULT_RATE_LIMITS, 0],
    [1, DEFAULT_RATE_LIMITS, 0],
    [10, DEFAULT_RATE_LIMITS, 0],
    [11, DEFAULT_RATE_LIMITS, MIN],
    [53, DEFAULT_RATE_LIMITS, 5 * MIN],
    [250, DEFAULT_RATE_LIMITS, 2 * HOUR + 4 * MIN],
    [1_000, 'none', 0],
    [17, '8/1s,60/12s', 2_000],
    [61, '8/1s,60/12s', 12_000],
  ])('%i requests under %s take at least %i ms', (requests, spec, ms) => {
    expect(minimumMakespanMs(requests, parseRateWindows(spec))).toBe(ms);
  });
});

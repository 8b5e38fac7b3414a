import { describe, expect, it } from 'vitest';
import type { RunSettings } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { OpenJobLedger } from '../../../src/batch/open-job-ledger.js';

const HOUR = 3_600_000;
const SETTINGS = { openJobCap: 2, ttlMs: 2 * HOUR, marginMs: 60_000, finalize: true } as RunSettings;
const freeSlots = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

function splitTask(name: string, pages: number): DocumentTask {
  return new DocumentTask({ path: `/in/${name}`, displayPath: name, sha256: name, size: 1, type: 'pdf', contentType: 'application/pdf', pages, output: `/out/${name}.json` }, 0);
}

function openTask(name: string, expiresAt: number): DocumentTask {
  const task = splitTask(name, 6);
  task.openJob({ parentJobId: `job-${name}`, chunks: [{ jobId: `c1-${name}`, pages: '1-3' }, { jobId: `c2-${name}`, pages: '4-6' }], expiresAt, pages: 6, model: null });
  return task;
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
    const ledger = new OpenJobLedger(SETTINGS, [HOUR, HOUR]);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(true);
    ledger.lowerCap(0);
    expect(ledger.admits(splitTask('c', 9), 0, freeSlots)).toBe(false);
    expect(ledger.earliestRelief(0)).toBe(1000);
    expect(ledger.loads(HOUR + 1)).toEqual([]);
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

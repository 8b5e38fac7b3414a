import { describe, expect, it } from 'vitest';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';
import { WatchRecord } from '../../../src/engine/watch-tally.js';
import { liveBytes } from '../../helpers/live-bytes.js';

function outcome(file: string, extra: Partial<DocumentOutcome> = {}): DocumentOutcome {
  return { file, status: 'complete', output: `/out/${file}.json`, pages: 1, credits: 1, job_id: null, error: null, ...extra } as DocumentOutcome;
}

describe("a watch command's record over its runs", () => {
  it('a file reported by an earlier run and answered again by its result (the folder retaken after a handover) is not news, once', () => {
    const record = new WatchRecord('/');
    const first = record.startRun();
    record.add(outcome('a.jpg'), first);
    const second = record.startRun();
    const again = outcome('a.jpg', { credits: 0, reused: 'result on disk' });
    expect(record.isRepeat(again, second)).toBe(true);
    // The same bytes written again later in that run: news again.
    expect(record.isRepeat(again, second)).toBe(false);
    expect(record.counts.complete).toBe(1);
  });

  it('in the run that reported it, a reuse is news (the same bytes written again); so is another result file, or a file extracted anew', () => {
    const record = new WatchRecord('/');
    const run = record.startRun();
    record.add(outcome('a.jpg'), run);
    expect(record.isRepeat(outcome('a.jpg', { reused: 'result on disk', credits: 0 }), run)).toBe(false);
    const later = record.startRun();
    expect(record.isRepeat(outcome('a.jpg', { reused: 'result on disk', output: '/elsewhere/a.jpg.json' }), later)).toBe(false);
    expect(record.isRepeat(outcome('a.jpg'), later)).toBe(false); // not reused: extracted again, new content
    expect(record.isRepeat(outcome('b.jpg', { reused: 'result on disk' }), later)).toBe(false);
  });

  it('a file that did not complete is retaken as news by a later run', () => {
    const record = new WatchRecord('/');
    const first = record.startRun();
    record.add(outcome('a.pdf', { status: 'failed', output: null }), first);
    expect(record.isRepeat(outcome('a.pdf', { reused: 'result on disk' }), record.startRun())).toBe(false);
  });

  it("the command's report sums what every run spent, and counts every file once", () => {
    const record = new WatchRecord('/');
    const first = record.startRun();
    record.add(outcome('a.jpg', { credits: 3 }), first);
    const base = { outcomes: [], interrupted: false, strayJobs: [] };
    record.report({ ...base, requests: 4, credits: 3 });
    const second = record.startRun();
    record.add(outcome('b.jpg', { credits: 2 }), second);
    const report = record.report({ ...base, requests: 2, credits: 2 });
    expect(report).toMatchObject({ requests: 6, credits: 5, counts: { complete: 2, partial: 0, failed: 0, skipped: 0, interrupted: 0 } });
  });

  it('holds under 50 bytes a file reported (a Map of hashes held ~100), not its path and its result path (a watch may see 100,000 files)', async () => {
    const record = new WatchRecord('/');
    const run = record.startRun();
    const files = 50_000;
    const before = await liveBytes();
    for (let i = 0; i < files; i++) record.add(outcome(`archive/folder-${i % 100}/scan-${i}.pdf`), run);
    const perFile = ((await liveBytes()) - before) / files;
    expect(record.isRepeat(outcome('archive/folder-7/scan-4107.pdf', { reused: 'result on disk' }), record.startRun())).toBe(true);
    expect(perFile).toBeLessThan(50);
  });
});

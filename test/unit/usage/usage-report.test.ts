import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { UsageTally, type UsageRecord } from '../../../src/engine/usage-record.js';
import { parseSince, usageReport } from '../../../src/usage/usage-report.js';
import { appendUsageLine, readUsageLines, usageLogPath, USAGE_KEPT_MS } from '../../../src/store/usage-log.js';
import { parseDuration } from '../../../src/config/grammar/duration.js';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';

const DAY = 86_400_000;
/** Noon, so that a local day is the UTC day in any zone within ±11 h. */
const NOON = (day: number): number => Date.UTC(2026, 10, day, 12);

function outcome(file: string, fields: Partial<DocumentOutcome>): DocumentOutcome {
  return { file, status: 'complete', pages: 1, model: 'invoice', output: null, job_id: null, extraction_id: null, warnings: [], credits: 1, ...fields };
}

function record(finishedMs: number, outcomes: DocumentOutcome[], extra: { requests?: number; command?: string } = {}): UsageRecord {
  const tally = new UsageTally('/work');
  for (const one of outcomes) tally.add(one);
  return tally.record({
    account: 'abc',
    command: extra.command ?? 'extract',
    startedAtMs: finishedMs - 1000,
    finishedAtMs: finishedMs,
    requests: extra.requests ?? outcomes.length,
    cwd: '/work',
  });
}

describe("a run's usage record", () => {
  it('sums credits per type and folder, counts reuse and its savings, and keeps only the charges that differ', () => {
    const line = record(NOON(26), [
      outcome('in/a/one.pdf', { credits: 4, pages: 4, job_id: 'j1', service_charge: { reported: 4, expected: 4 } }),
      outcome('in/a/two.pdf', { credits: 12, pages: 12, model: 'payslip', job_id: 'j2', service_charge: { reported: 13, expected: 12 } }),
      outcome('in/b/old.pdf', { credits: 0, reused: 'same file', saved_credits: 3 }),
    ]);
    expect(line).toMatchObject({ credits: 16, documents: 3, reused: 1, saved_credits: 3 });
    expect(line.models).toEqual({
      invoice: { credits: 4, documents: 2, reused: 1, saved_credits: 3 },
      payslip: { credits: 12, documents: 1, reused: 0, saved_credits: 0 },
    });
    expect(Object.keys(line.folders)).toEqual(['/work/in/a', '/work/in/b']);
    expect(line.charges).toEqual({
      jobs: 2,
      expected: 16,
      reported: 17,
      mismatches: [{ file: 'in/a/two.pdf', job_id: 'j2', expected: 12, reported: 13, at: new Date(NOON(26)).toISOString() }],
    });
  });
});

describe('the usage report', () => {
  const records = [
    record(NOON(2), [outcome('a.pdf', { credits: 2 })], { requests: 3 }),
    record(NOON(3), [outcome('b.pdf', { credits: 5 })], { requests: 6, command: 'watch' }),
    record(NOON(24), [outcome('c.pdf', { credits: 7 })], { requests: 8 }),
  ];
  const base = { records, sends: [], windows: [], sinceMs: 0, nowMs: NOON(26) };

  it('rows per day, week (its Monday) and month, in time order', () => {
    expect(usageReport({ ...base, by: 'day' }).rows.map((row) => [row.key, row.credits, row.requests])).toEqual([
      ['2026-11-02', 2, 3],
      ['2026-11-03', 5, 6],
      ['2026-11-24', 7, 8],
    ]);
    // 2 and 3 November 2026 are a Monday and a Tuesday; the 24th is a Tuesday.
    expect(usageReport({ ...base, by: 'week' }).rows.map((row) => [row.key, row.credits])).toEqual([
      ['2026-11-02', 7],
      ['2026-11-23', 7],
    ]);
    expect(usageReport({ ...base, by: 'month' }).rows).toEqual([{ key: '2026-11', credits: 14, requests: 17, documents: 3, reused: 0, saved_credits: 0 }]);
    expect(usageReport({ ...base, by: 'command' }).rows.map((row) => row.key)).toEqual(['extract', 'watch']);
  });

  it('counts only what finished since --since, and says how far back the records go', () => {
    const report = usageReport({ ...base, by: 'day', sinceMs: parseSince('7d', NOON(26), parseDuration) });
    expect(report.total).toMatchObject({ credits: 7, requests: 8, runs: 1 });
    expect(report.records_from).toBe(new Date(NOON(2)).toISOString());
    expect(parseSince('2026-11-01', 0, parseDuration)).toBe(new Date(2026, 10, 1).getTime());
    expect(() => parseSince('last week', 0, parseDuration)).toThrow();
  });

  it('how full each window is now, from the send times', () => {
    const now = NOON(26);
    const sends = [now - 40 * DAY, now - 2 * DAY, now - 30_000, now - 10_000];
    const report = usageReport({ ...base, by: 'day', sends, windows: parseRateWindows('10/min,1000/d,10000/mo'), nowMs: now });
    expect(report.windows).toEqual([
      { window: '10/min', limit: 10, used: 2, remaining: 8, frees_at: new Date(now - 30_000 + 60_000).toISOString() },
      { window: '1000/d', limit: 1000, used: 2, remaining: 998, frees_at: new Date(now - 30_000 + DAY).toISOString() },
      { window: '10000/mo', limit: 10000, used: 3, remaining: 9997, frees_at: new Date(now - 2 * DAY + 30 * DAY).toISOString() },
    ]);
  });
});

describe('the usage log', () => {
  it('appends one line per run, passes over a torn line, and drops lines past 400 days once the file is large', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-usage-'));
    const now = NOON(26);
    await appendUsageLine(dir, 'abc', record(now - 500 * DAY, []), now);
    appendFileSync(usageLogPath(dir, 'abc'), '{"finished_at": "2026-11-2'); // a crash mid-line
    await appendUsageLine(dir, 'abc', record(now, []), now);
    expect((await readUsageLines<UsageRecord>(dir, 'abc')).map((line) => line.finished_at)).toEqual([
      new Date(now - 500 * DAY).toISOString(),
      new Date(now).toISOString(),
    ]);
    expect(await readUsageLines(dir, 'other')).toEqual([]);

    // Past 512 KiB, the next append rewrites the file without what is older than 400 days.
    const padding = `${JSON.stringify(record(now - 10 * DAY, []))}\n`.repeat(Math.ceil((512 * 1024) / 300));
    appendFileSync(usageLogPath(dir, 'abc'), padding);
    await appendUsageLine(dir, 'abc', record(now, []), now);
    const kept = await readUsageLines<UsageRecord>(dir, 'abc');
    expect(kept.every((line) => Date.parse(line.finished_at) >= now - USAGE_KEPT_MS)).toBe(true);
    expect(kept.length).toBeGreaterThan(100);
    expect(readFileSync(usageLogPath(dir, 'abc'), 'utf8').length).toBeLessThan(padding.length + 2000);
    writeFileSync(join(dir, 'usage-notes.txt'), 'not a log');
    expect((await readUsageLines(dir)).length).toBe(kept.length);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import { listJobs } from '../../../src/engine/list-jobs.js';
import { lastRunReportFrom } from '../../../src/engine/last-run.js';
import { readLastRunReports, writeLastRunReport } from '../../../src/store/last-run-report.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

function manifest(account: string, parentJobId: string, expiresAt: number): JournalRecord {
  return {
    type: 'manifest',
    account,
    at: NOW - HOUR,
    intentId: `i-${parentJobId}`,
    sha256: 'ab',
    path: `/in/${parentJobId}.pdf`,
    output: `/out/${parentJobId}.pdf.json`,
    parentJobId,
    chunks: [
      { jobId: `${parentJobId}-1`, pages: '1-3' },
      { jobId: `${parentJobId}-2`, pages: '4-6' },
    ],
    pages: 6,
    expiresAt,
    model: null,
  };
}

function stateWith(records: JournalRecord[], tail = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-jobs-'));
  writeFileSync(join(dir, 'journal.ndjson'), records.map((record) => `${JSON.stringify(record)}\n`).join('') + tail);
  return dir;
}

describe('listJobs', () => {
  it('tells open, result-saved and expired jobs apart, skips finished ones, and reads past a torn last line', async () => {
    const stateDir = stateWith(
      [
        manifest('acc', 'open', NOW + HOUR),
        { type: 'chunk-done', account: 'acc', at: NOW, parentJobId: 'open', chunkJobId: 'open-1', charged: 3 },
        manifest('acc', 'saved', NOW + 2 * HOUR),
        { type: 'result-written', account: 'acc', at: NOW, parentJobId: 'saved', output: '/out/saved.pdf.json', status: 'complete' },
        manifest('acc', 'old', NOW - 1),
        manifest('acc', 'done', NOW + HOUR),
        { type: 'finalized', account: 'acc', at: NOW, parentJobId: 'done' },
        { type: 'upload-intent', account: 'acc', at: NOW - 10_000, intentId: 'lost', sha256: 'cd', path: '/in/lost.pdf', pages: 9 },
      ],
      '{"type":"chunk-done","acc',
    );
    const overview = await listJobs({ stateDir, nowMs: NOW, ttlMs: 2 * HOUR });
    expect(overview.jobs.map((job) => [job.parent_job_id, job.state, job.chunks_done, job.resume])).toEqual([
      ['old', 'expired', 0, null],
      ['open', 'open', 1, 'docextract collect open'],
      ['saved', 'result-saved', 0, 'docextract collect saved'],
    ]);
    expect(overview.jobs[1]).toMatchObject({ chunks_total: 2, expires_in_ms: HOUR, expires_at: new Date(NOW + HOUR).toISOString() });
    expect(overview.unanswered).toEqual([
      {
        kind: 'unanswered-upload',
        account: 'acc',
        file: '/in/lost.pdf',
        sent_at: new Date(NOW - 10_000).toISOString(),
        possibly_open_until: new Date(NOW - 10_000 + 2 * HOUR).toISOString(),
      },
    ]);
  });

  it('no longer lists an upload sent without an answer once its file completes later, by a sync answer or a job whose result is written', async () => {
    const intent = (intentId: string, sha256: string, extra: Partial<JournalRecord> = {}): JournalRecord =>
      ({ type: 'upload-intent', account: 'acc', at: NOW - 10_000, intentId, sha256, path: `/in/${intentId}.pdf`, pages: 9, ...extra }) as JournalRecord;
    const stateDir = stateWith([
      intent('killed-then-split', 'ab'),
      intent('killed-then-sync', 'cd'),
      intent('killed-other-pages', 'ab', { sourcePages: [1, 2] } as Partial<JournalRecord>),
      intent('still-lost', 'ef'),
      manifest('acc', 'later', NOW + HOUR),
      { type: 'result-written', account: 'acc', at: NOW, parentJobId: 'later', output: '/out/later.pdf.json', status: 'complete' },
      intent('answered-sync', 'cd'),
      { type: 'upload-answered', account: 'acc', at: NOW, intentId: 'answered-sync', sha256: 'cd', outcome: 'sync' },
    ]);
    const overview = await listJobs({ stateDir, nowMs: NOW, ttlMs: 2 * HOUR });
    expect(overview.unanswered.map((upload) => upload.file)).toEqual(['/in/killed-other-pages.pdf', '/in/still-lost.pdf']);
  });

  it("shows one account's jobs and last run when asked, every account's otherwise", async () => {
    const stateDir = stateWith([manifest('aaaa', 'mine', NOW + HOUR), manifest('bbbb', 'theirs', NOW + HOUR)]);
    const outcome = {
      file: 'x.pdf',
      source: '/in/x.pdf',
      status: 'failed' as const,
      pages: 1,
      model: null,
      output: null,
      job_id: null,
      extraction_id: null,
      warnings: [],
      credits: 1,
      error: { code: 'extraction_failed', message: 'no text' },
    };
    await writeLastRunReport(
      stateDir,
      'bbbb',
      lastRunReportFrom({
        outDir: '/out',
        outcomes: [outcome, { ...outcome, file: 'ok.pdf', status: 'complete', error: undefined }],
        startedAtMs: NOW - 1000,
        finishedAtMs: NOW,
      }),
    );
    const mine = await listJobs({ stateDir, account: 'aaaa', nowMs: NOW, ttlMs: 2 * HOUR });
    expect(mine.jobs.map((job) => job.parent_job_id)).toEqual(['mine']);
    expect(mine.failedFiles).toEqual([]);
    const all = await listJobs({ stateDir, nowMs: NOW, ttlMs: 2 * HOUR });
    expect(all.jobs.map((job) => job.parent_job_id).sort()).toEqual(['mine', 'theirs']);
    expect(all.failedFiles).toEqual([
      {
        kind: 'failed-file',
        account: 'bbbb',
        run_finished_at: new Date(NOW).toISOString(),
        file: 'x.pdf',
        source: '/in/x.pdf',
        status: 'failed',
        code: 'extraction_failed',
        message: 'no text',
      },
    ]);
    expect((await readLastRunReports(stateDir))[0]).toMatchObject({ out_dir: '/out', counts: { complete: 1, failed: 1 } });
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';
import { EarlierUndone } from '../../../src/engine/earlier-undone.js';
import { failedDocuments } from '../../../src/review/failed-documents.js';
import { writeLastRunReport, type LastRunFile } from '../../../src/store/last-run-report.js';

const ACCOUNT = '0123456789abcdef';

function notStarted(source: string): LastRunFile {
  return { file: source, source, status: 'interrupted', code: 'interrupted', message: 'not started' };
}

function interruptedOutcome(source: string): DocumentOutcome {
  return { file: source, source, status: 'interrupted', pages: null, model: null, output: null, job_id: null, extraction_id: null, warnings: [], credits: 0 };
}

describe('EarlierUndone', () => {
  it('carries what the last run and the runs it carried left, less what this run finished and what is gone, each file once', async () => {
    const inputs = mkdtempSync(join(tmpdir(), 'docextract-undone-in-'));
    const [a, b, c, d, gone] = ['a.pdf', 'b.pdf', 'c.pdf', 'd.pdf', 'gone.pdf'].map((name) => join(inputs, name));
    for (const path of [a, b, c, d]) writeFileSync(path!, '%PDF-1.4\n');
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-undone-state-'));
    await writeLastRunReport(stateDir, ACCOUNT, {
      started_at: '2026-01-02T00:00:00.000Z',
      finished_at: '2026-01-02T00:01:00.000Z',
      out_dir: '/out-2',
      command: 'docextract collect job_1',
      counts: { complete: 1, failed: 1 },
      files: [{ ...notStarted(a!), status: 'failed', code: 'extraction_failed' }],
      earlier: [
        {
          finished_at: '2026-01-01T00:01:00.000Z',
          out_dir: '/out-1',
          command: 'docextract extract in',
          files: [b, c, d, gone].map((path) => notStarted(path!)),
        },
      ],
    });
    const undone = new EarlierUndone(stateDir);
    undone.complete(b); // completed before the reports were read: kept in a list until then
    const carried = await undone.carried(ACCOUNT, [interruptedOutcome(c!)]);
    expect(carried).toEqual([
      {
        finished_at: '2026-01-02T00:01:00.000Z',
        out_dir: '/out-2',
        command: 'docextract collect job_1',
        files: [{ ...notStarted(a!), status: 'failed', code: 'extraction_failed' }],
      },
      { finished_at: '2026-01-01T00:01:00.000Z', out_dir: '/out-1', command: 'docextract extract in', files: [notStarted(d!)] },
    ]);
  });

  it('an earlier run carried in a report is reviewed in its own results folder', async () => {
    const out = mkdtempSync(join(tmpdir(), 'docextract-undone-out-'));
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-undone-state-'));
    await writeLastRunReport(stateDir, ACCOUNT, {
      started_at: '2026-01-02T00:00:00.000Z',
      finished_at: '2026-01-02T00:01:00.000Z',
      out_dir: '/elsewhere',
      counts: { complete: 1 },
      files: [],
      earlier: [{ finished_at: '2026-01-01T00:01:00.000Z', out_dir: out, files: [notStarted('/in/x.pdf')] }],
    });
    expect((await failedDocuments(stateDir, out, () => false)).map((document) => [document.source, document.finished_at])).toEqual([
      ['/in/x.pdf', '2026-01-01T00:01:00.000Z'],
    ]);
  });
});

/**
 * Resuming a journaled job: what is left of it depends on the result on disk.
 * A crash can fall between the result file's rename and its journal record;
 * the file then still says, by its parent job id, that the job's answer is in.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocumentTask } from '../../../src/batch/document-task.js';
import type { JournaledJob } from '../../../src/batch/journal-records.js';
import { resumeJob } from '../../../src/engine/resume-tasks.js';

const SHA = 'b'.repeat(64);

function journaled(output: string, extra: Partial<JournaledJob> = {}): JournaledJob {
  return {
    account: 'acct',
    sha256: SHA,
    path: '/in/b.pdf',
    output,
    parentJobId: 'job_mine',
    chunks: [
      { jobId: 'job_c1', pages: '1-3' },
      { jobId: 'job_c2', pages: '4-5' },
    ],
    pages: 5,
    expiresAt: Date.now() + 3_600_000,
    model: null,
    doneChunks: new Map([
      ['job_c1', 3],
      ['job_c2', 2],
    ]),
    finalized: false,
    ...extra,
  };
}

function resultOnDisk(parentJobId: string, status = 'complete', sha256 = SHA): string {
  const output = join(mkdtempSync(join(tmpdir(), 'resume-')), 'b.pdf.json');
  writeFileSync(
    output,
    JSON.stringify({ status, source: { path: '/in/b.pdf', sha256 }, pages: { total: 5 }, job: { parent_job_id: parentJobId }, credits: 5, data: { ok: true } }),
  );
  return output;
}

async function resumed(job: JournaledJob, output = job.output): Promise<DocumentTask> {
  const task = new DocumentTask(
    { path: job.path, displayPath: 'b.pdf', sha256: SHA, size: 1, type: 'pdf', contentType: 'application/pdf', pages: 5, output },
    0,
  );
  await resumeJob(task, job);
  return task;
}

describe('resumeJob', () => {
  it('with no record of the result, a complete file naming this job leaves only the finalize', async () => {
    const task = await resumed(journaled(resultOnDisk('job_mine')));
    expect(task.job?.phase).toBe('written');
    expect(task.job?.outcome).toMatchObject({ status: 'complete', job_id: 'job_mine', file: 'b.pdf' });
    expect(task.credits).toBe(5);
    expect(task.requestsLeft(true)).toBe(1);
  });

  it('with no record, a file of another job, of other content or partial is collected again', async () => {
    for (const output of [
      resultOnDisk('job_other'),
      resultOnDisk('job_mine', 'complete', 'c'.repeat(64)),
      resultOnDisk('job_mine', 'partial'),
      '/nonexistent/b.pdf.json',
    ]) {
      const task = await resumed(journaled(output));
      expect(task.job?.phase, output).toBe('working');
      expect(task.requestsLeft(true)).toBe(2); // collect, finalize
    }
  });

  it('with a record of a complete result, the file of the same content is trusted whatever job it names', async () => {
    const output = resultOnDisk('job_other');
    const task = await resumed(journaled(output, { resultWritten: { output, status: 'complete' } }));
    expect(task.job?.phase).toBe('written');
  });

  it('for a document whose result goes elsewhere (another command, another --out), the complete answer written is copied there, leaving only the finalize', async () => {
    // Collecting again is no substitute: the job may be gone (a host killed between its finalize and the record of it).
    const output = resultOnDisk('job_mine');
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'resume-')), 'b.pdf.json');
    const task = await resumed(journaled(output, { resultWritten: { output, status: 'complete' } }), elsewhere);
    expect(task.job?.phase).toBe('written');
    expect(task.requestsLeft(true)).toBe(1);
    expect(JSON.parse(readFileSync(elsewhere, 'utf8'))).toMatchObject({ status: 'complete', job: { parent_job_id: 'job_mine' }, data: { ok: true } });
  });

  it("for a document whose result goes elsewhere, the job is collected again when the answer written is gone, partial or another job's", async () => {
    for (const [output, status] of [
      ['/nonexistent/b.pdf.json', 'complete'],
      [resultOnDisk('job_mine', 'partial'), 'partial'],
      [resultOnDisk('job_other'), 'complete'],
    ] as const) {
      const elsewhere = join(mkdtempSync(join(tmpdir(), 'resume-')), 'b.pdf.json');
      const task = await resumed(journaled(output, { resultWritten: { output, status } }), elsewhere);
      expect(task.job?.phase, output).toBe('working');
      expect(task.requestsLeft(true)).toBe(2); // collect, finalize
    }
  });
});

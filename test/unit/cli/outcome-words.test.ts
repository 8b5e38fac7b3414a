import { describe, expect, it } from 'vitest';
import type { PlannedDocument } from '../../../src/batch/batch-types.js';
import { DocumentTask } from '../../../src/batch/document-task.js';
import { leftUndone, slotWaitOver } from '../../../src/batch/left-undone.js';
import { cliErrorMessage, wordedForCli } from '../../../src/cli/outcome-words.js';

const doc: PlannedDocument = {
  path: '/in/twelve.pdf',
  displayPath: 'in/twelve.pdf',
  sha256: 'ab',
  size: 10,
  type: 'pdf',
  contentType: 'application/pdf',
  pages: 12,
  output: '/out/twelve.pdf.json',
};
const EXPIRES = Date.parse('2026-11-24T14:00:00Z');

function openTask(): DocumentTask {
  const task = new DocumentTask(doc, 0);
  task.openJob({ parentJobId: 'job_p', chunks: [{ jobId: 'job_c', pages: '1-3' }], expiresAt: EXPIRES, pages: 12, model: null });
  return task;
}

describe('outcomes carry reasons as data; the CLI words them', () => {
  it('an interrupted document with an open job: the engine says what happened and gives the job as data, naming no command', () => {
    const outcome = leftUndone(openTask(), { interrupted: true, fatal: false, stoppedBy: undefined });
    expect(outcome.error).toEqual({
      code: 'interrupted',
      message: 'job job_p is open',
      details: { kind: 'job_open', job_id: 'job_p', expires_at: '2026-11-24T14:00:00.000Z' },
    });
    expect(outcome.error?.message).not.toContain('docextract');
    expect(cliErrorMessage(outcome.error as NonNullable<typeof outcome.error>)).toMatch(
      /^job job_p is open; resume before .+ by running the same command again, or: docextract collect job_p$/,
    );
  });

  it('a slot wait that ran out: the CLI names its flag, the engine the facts', () => {
    const { outcome } = slotWaitOver(new DocumentTask(doc, 0), 5, 1_800_000);
    expect(outcome.error?.details).toEqual({ kind: 'slot_wait_over', slot_wait_ms: 1_800_000, held_by_others: 5 });
    expect(outcome.error?.message).not.toContain('--slot-wait');
    expect(wordedForCli(outcome).error?.message).toBe('no job slot came free within --slot-wait 30m 00s (5 held by jobs outside this run); not sent');
  });

  it('an outcome without details is shown as the engine said it', () => {
    // A document never started carries `details.kind: 'not_started'` now: take its details away to have one without.
    const left = leftUndone(new DocumentTask(doc, 0), { interrupted: false, fatal: true, stoppedBy: undefined });
    const plain = { ...left, error: { code: left.error?.code ?? 'not_started', message: left.error?.message ?? '' } };
    expect(wordedForCli(plain)).toBe(plain);
  });
});

describe('stop reasons carry their setting as data', () => {
  it('a run stopped by its credit budget: plain words from the engine, the flag from the CLI', async () => {
    const { AdmissionStops } = await import('../../../src/batch/admission-stops.js');
    const { cliStopMessage } = await import('../../../src/cli/outcome-words.js');
    const stops = new AdmissionStops(10);
    const verdict = stops.verdict(new DocumentTask(doc, 0));
    expect(verdict).toMatchObject({
      stop: { code: 'max_credits_reached', details: { kind: 'max_credits', max_credits: 10, pages: 12, file: 'in/twelve.pdf' } },
    });
    const stop = (verdict as { stop: { code: string; message: string } }).stop;
    expect(stop.message).not.toContain('--max-credits');
    expect(cliStopMessage(stop)).toBe('--max-credits 10 would be passed by in/twelve.pdf (12 pages); stopped admitting files');
  });
});

import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobPhaseError, awaitsResult, moveJob, type JobMove, type JobPhase } from '../../../src/batch/job-phase.js';

const PHASES: JobPhase[] = ['working', 'collecting', 'written', 'finalizing', 'partial', 'closed'];

/** Every move the engine may make, from where, to where: the diagram in job-phase.ts. */
const ALLOWED: [JobPhase, JobMove, JobPhase][] = [
  ['working', 'collect-sent', 'collecting'],
  ['collecting', 'collect-answered', 'working'],
  ['collecting', 'wrote-complete', 'written'],
  ['collecting', 'wrote-partial', 'partial'],
  ['written', 'finalize-sent', 'finalizing'],
  ['finalizing', 'finalize-answered', 'written'],
  ['finalizing', 'finalized', 'closed'],
  ...PHASES.map((from): [JobPhase, JobMove, JobPhase] => [from, 'lost', 'closed']),
];

const MOVES: JobMove[] = ['collect-sent', 'collect-answered', 'wrote-complete', 'wrote-partial', 'finalize-sent', 'finalize-answered', 'finalized', 'lost'];

describe('a job phase', () => {
  it.each(ALLOWED)('from %s, %s leads to %s', (from, move, to) => {
    const job = { parentJobId: 'job_p', phase: from };
    moveJob(job, move);
    expect(job.phase).toBe(to);
  });

  it('refuses every other move, naming the job, its phase and the move, and stays where it was', () => {
    let refused = 0;
    for (const from of PHASES) {
      for (const move of MOVES) {
        if (ALLOWED.some(([f, m]) => f === from && m === move)) continue;
        const job = { parentJobId: 'job_p', phase: from };
        expect(() => moveJob(job, move)).toThrow(new JobPhaseError('job_p', from, move));
        expect(() => moveJob(job, move)).toThrow(`job job_p: "${move}" is not a move from ${from}`);
        expect(job.phase).toBe(from);
        refused += 1;
      }
    }
    // 6 phases x 8 moves, less the 13 allowed.
    expect(refused).toBe(6 * 8 - ALLOWED.length);
  });

  it('no finalize before the result is written, no second collect in flight', () => {
    expect(() => moveJob({ parentJobId: 'j', phase: 'working' }, 'finalize-sent')).toThrow(JobPhaseError);
    expect(() => moveJob({ parentJobId: 'j', phase: 'collecting' }, 'collect-sent')).toThrow(JobPhaseError);
    expect(() => moveJob({ parentJobId: 'j', phase: 'partial' }, 'finalize-sent')).toThrow(JobPhaseError);
  });

  it('awaits its result only while chunks or the collect are to come', () => {
    expect(PHASES.filter(awaitsResult)).toEqual(['working', 'collecting']);
  });
});

describe('the one place a phase moves', () => {
  it('is BatchState: no other module of src/ imports or calls moveJob (flows return a job-moved effect)', async () => {
    const movers: string[] = [];
    for (const file of await readdir('src', { recursive: true })) {
      if (!file.endsWith('.ts')) continue;
      const text = await readFile(join('src', file), 'utf8');
      if (/\bmoveJob\(/.test(text) || /import\s*\{[^}]*\bmoveJob\b[^}]*\}\s*from/.test(text)) movers.push(file.split('\\').join('/'));
    }
    expect(movers.sort()).toEqual(['batch/batch-state.ts', 'batch/job-phase.ts']);
  });

  it("is BatchState for a document's phase too: only it, the task's own methods and moveJob write a phase", async () => {
    const writers: string[] = [];
    for (const file of await readdir('src', { recursive: true })) {
      if (!file.endsWith('.ts')) continue;
      const text = await readFile(join('src', file), 'utf8');
      if (/\.phase\s*=[^=]/.test(text)) writers.push(file.split('\\').join('/'));
    }
    expect(writers.sort()).toEqual(['batch/batch-state.ts', 'batch/document-task.ts', 'batch/job-phase.ts']);
  });
});

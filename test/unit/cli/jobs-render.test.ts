import { describe, expect, it } from 'vitest';
import { renderCommands, renderJobs } from '../../../src/cli/run/jobs-render.js';
import type { JobsOverview } from '../../../src/engine/list-jobs.js';
import type { ServerJobView } from '../../../src/engine/server-job-view.js';
import {
  expectNothingRaw,
  FAKE_LINE_NAME,
  FAKE_LINE_NAME_SHOWN,
  HOSTILE_SERVICE_TEXT,
  HOSTILE_SERVICE_TEXT_SHOWN,
  OSC_NAME,
} from '../../helpers/hostile-text.js';

const ended: JobsOverview = {
  jobs: [],
  unanswered: [],
  failedFiles: [],
  lastRuns: [{ account: 'a', finished_at: '2026-11-26T14:00:00.000Z', counts: { complete: 3, failed: 0 } }],
};
const watch = { pid: 7, command: 'docextract watch in', since: '2026-11-26T14:05:00.000Z', role: 'host' as const, queued: 1, inProgress: 0, jobSlots: 0 };

describe('docextract jobs, while a watch runs', () => {
  it('says plainly what runs now and which run ended last, never "the one before it"', () => {
    const text = renderCommands([watch]) + renderJobs(ended, new Map(), { allAccounts: false, running: true });
    expect(text).toMatch(/^Running now \(1\):\n {2}process 7 \(schedules for all, since .*\): docextract watch in\n/);
    expect(text).toMatch(/\nLast run that ended \(finished .*\): 3 complete\n$/);
    expect(text).not.toContain('before it');
  });

  it('names the process holding the state folder when it lists no commands yet, and says when no run has ended', () => {
    const text =
      renderCommands([], { pid: 42, startedAt: Date.parse('2026-11-26T14:05:00.000Z') }) +
      renderJobs({ ...ended, lastRuns: [] }, new Map(), { allAccounts: false, running: true });
    expect(text).toMatch(/^Running now: process 42 \(since .*\)\n\nNo open jobs\.\n\nNo run has ended yet\.\n$/);
    expect(renderCommands([])).toBe('');
    expect(renderJobs({ ...ended, lastRuns: [] }, new Map(), { allAccounts: false })).toBe('No open jobs.\n');
  });
});

describe('docextract jobs, with hostile names', () => {
  it("a running command's line, an open job's file and id, and the server's words are shown escaped, one line each", () => {
    const job = {
      account: 'a',
      file: OSC_NAME,
      parent_job_id: 'job_1\x1b[2K',
      state: 'open',
      chunks_done: 1,
      chunks_total: 2,
      chunks: [{ job_id: 'chunk\n2', pages: '3-4', done: false }],
      expires_in_ms: 60_000,
      expires_at: '2026-11-26T16:00:00.000Z',
      resume: 'docextract collect job_1\x1b[2K',
    } as unknown as JobsOverview['jobs'][number];
    const views = new Map([['job_1\x1b[2K', { status: 'error', code: 'job_expired', message: HOSTILE_SERVICE_TEXT } as unknown as ServerJobView]]);
    const text =
      renderCommands([{ ...watch, command: `docextract extract ${FAKE_LINE_NAME}` }]) + renderJobs({ ...ended, jobs: [job] }, views, { allAccounts: false });
    expectNothingRaw(text, 'jobs');
    const lines = text.split('\n');
    expect(lines).toContainEqual(expect.stringContaining(`: docextract extract ${FAKE_LINE_NAME_SHOWN}`));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}invoice\\x1b\]52;.*\\x1b\[2K\.pdf {2}job job_1\\x1b\[2K {2}chunks 1\/2/));
    expect(lines).toContain(`    server: job_expired: ${HOSTILE_SERVICE_TEXT_SHOWN}`);
    expect(lines).toContain('    chunks left: chunk\\n2 (pages 3-4)');
  });
});

describe('docextract jobs, after a run stopped by Ctrl-C', () => {
  it('says the files that never started in one line with their count; a failed file and an open job keep their own lines', () => {
    const file = (name: string, extra: Partial<JobsOverview['failedFiles'][number]>): JobsOverview['failedFiles'][number] =>
      ({
        kind: 'failed-file',
        account: 'a',
        run_finished_at: '2026-11-26T14:00:00.000Z',
        file: name,
        status: 'interrupted',
        code: 'interrupted',
        message: 'not started',
        ...extra,
      }) as JobsOverview['failedFiles'][number];
    const notStarted = Array.from({ length: 48 }, (_, index) => file(`wide/r${String(index).padStart(3, '0')}.png`, {}));
    const overview: JobsOverview = {
      ...ended,
      lastRuns: [{ account: 'a', finished_at: '2026-11-26T14:00:00.000Z', counts: { complete: 3, interrupted: 49, failed: 1 } }],
      failedFiles: [
        file('bad.pdf', { status: 'failed', code: 'invalid_file', message: 'bad.pdf looks truncated.' }),
        file('long.pdf', { code: 'interrupted', message: 'job job_9 is open', job_id: 'job_9' }),
        ...notStarted,
      ],
    };
    const lines = renderJobs(overview, new Map(), { allAccounts: false }).split('\n');
    expect(lines.filter((line) => line.includes('not started'))).toEqual([
      '  48 files not started (interrupted): nothing of them was sent; `docextract jobs --verbose` (or --json) lists each',
    ]);
    expect(lines).not.toContain('    wide/r000.png');
    expect(lines).toContain('  bad.pdf  failed  invalid_file: bad.pdf looks truncated.');
    expect(lines).toContain('  long.pdf  interrupted  interrupted: job job_9 is open');
  });

  it('lists each file that never started under --verbose, below the line that counts them', () => {
    const file = (name: string): JobsOverview['failedFiles'][number] =>
      ({
        kind: 'failed-file',
        account: 'a',
        run_finished_at: '2026-11-26T14:00:00.000Z',
        file: name,
        status: 'interrupted',
        code: 'interrupted',
        message: 'not started',
      }) as JobsOverview['failedFiles'][number];
    const overview: JobsOverview = {
      ...ended,
      lastRuns: [{ account: 'a', finished_at: '2026-11-26T14:00:00.000Z', counts: { interrupted: 2 } }],
      failedFiles: [file('a.png'), file('b\u001b[2K.png')],
    };
    const lines = renderJobs(overview, new Map(), { allAccounts: false, verbose: true }).split('\n');
    const at = lines.indexOf('  2 files not started (interrupted): nothing of them was sent');
    expect(at, lines.join('\n')).toBeGreaterThan(-1);
    expect(lines.slice(at + 1, at + 3)).toEqual(['    a.png', '    b\\x1b[2K.png']);
  });
});

describe('docextract jobs, after a Ctrl-C and then a collect of one job', () => {
  it('lists what the earlier run left under its own heading, with the command that takes it up (and its folder when elsewhere)', () => {
    const file = (name: string): JobsOverview['failedFiles'][number] => ({
      kind: 'failed-file',
      account: 'a',
      run_finished_at: '2026-11-26T13:00:00.000Z',
      file: name,
      source: `/work/${name}`,
      status: 'interrupted',
      code: 'interrupted',
      message: 'not started',
      resume: 'docextract extract in --out results',
      resume_in: '/work',
    });
    const overview: JobsOverview = {
      ...ended,
      lastRuns: [{ account: 'a', finished_at: '2026-11-26T14:00:00.000Z', counts: { complete: 1 } }],
      failedFiles: [file('in/a.png'), file('in/b.png')],
    };
    const lines = renderJobs(overview, new Map(), { allAccounts: false, cwd: '/elsewhere' }).split('\n');
    const at = lines.findIndex((line) => line.startsWith('  Left undone by an earlier run (finished '));
    expect(at, lines.join('\n')).toBeGreaterThan(-1);
    expect(lines.slice(at + 1)).toEqual([
      '    2 files not started (interrupted): nothing of them was sent; `docextract jobs --verbose` (or --json) lists each',
      '    finish: docextract extract in --out results  (in /work)',
      '',
    ]);
    expect(renderJobs(overview, new Map(), { allAccounts: false, cwd: '/work' })).toContain('\n    finish: docextract extract in --out results\n');
  });
});

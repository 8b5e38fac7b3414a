import { describe, expect, it } from 'vitest';
import { renderCommands, renderJobs } from '../../../src/cli/run/jobs-render.js';
import type { JobsOverview } from '../../../src/features/list-jobs.js';

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
    const text = renderCommands([], { pid: 42, startedAt: Date.parse('2026-11-26T14:05:00.000Z') }) + renderJobs({ ...ended, lastRuns: [] }, new Map(), { allAccounts: false, running: true });
    expect(text).toMatch(/^Running now: process 42 \(since .*\)\n\nNo open jobs\.\n\nNo run has ended yet\.\n$/);
    expect(renderCommands([])).toBe('');
    expect(renderJobs({ ...ended, lastRuns: [] }, new Map(), { allAccounts: false })).toBe('No open jobs.\n');
  });
});

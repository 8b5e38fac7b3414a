import { describe, expect, it } from 'vitest';
import type { DocumentOutcome } from '../../../src/batch/batch-types.js';
import { UsageTally } from '../../../src/engine/usage-record.js';

const RUN = { account: 'acc', command: 'extract', startedAtMs: 0, finishedAtMs: 1000, requests: 3, cwd: '/work' };

function outcome(file: string, credits: number): DocumentOutcome {
  return { file, status: 'complete', pages: credits, model: 'invoice', output: `/out/${file}.json`, job_id: 'j', extraction_id: null, warnings: [], credits };
}

describe('UsageTally counting charges', () => {
  it("counts what this run was charged, not a resumed document's credits from an earlier run", () => {
    const tally = new UsageTally('/work', 'charges');
    // 30 pages, 9 of them paid (and recorded) by the interrupted run this one resumes.
    tally.charged(21, 'in/thirty.pdf', 'invoice');
    tally.add(outcome('in/thirty.pdf', 30));
    const record = tally.record(RUN);
    expect(record.credits).toBe(21);
    expect(record.models).toEqual({ invoice: { credits: 21, documents: 1, reused: 0, saved_credits: 0 } });
    expect(record.folders).toEqual({ '/work/in': { credits: 21, documents: 1, reused: 0, saved_credits: 0 } });
  });

  it('counts charges of documents that never got an outcome (a second Ctrl-C), under what they asked for', () => {
    const tally = new UsageTally('/work', 'charges');
    tally.charged(3, 'in/a.pdf', undefined);
    tally.charged(3, 'in/a.pdf', undefined);
    tally.charged(2, 'in/b.pdf', 'payslip');
    tally.add(outcome('in/b.pdf', 2));
    const record = tally.record(RUN);
    expect(record.credits).toBe(8);
    expect(record.documents).toBe(1);
    expect(record.models).toEqual({
      '(none)': { credits: 6, documents: 0, reused: 0, saved_credits: 0 },
      invoice: { credits: 2, documents: 1, reused: 0, saved_credits: 0 },
    });
    // Asking again gives the same record: nothing is counted twice.
    expect(tally.record(RUN)).toEqual(record);
  });

  it("counts each outcome's credits when it sees only outcomes (a library run)", () => {
    const tally = new UsageTally('/work');
    tally.charged(5, 'in/a.pdf', undefined);
    tally.add(outcome('in/a.pdf', 7));
    expect(tally.record(RUN).credits).toBe(7);
  });
});

import { describe, expect, it } from 'vitest';
import { OutcomeCounts } from '../../../src/batch/outcome-counts.js';

describe('OutcomeCounts', () => {
  it('counts each finished document under its status, and those whose checks failed', () => {
    const counts = new OutcomeCounts();
    counts.add({ status: 'complete' });
    counts.add({ status: 'complete', checks: { schema: '/schemas/invoice.json', passed: false, problems: [] } });
    counts.add({ status: 'partial' });
    counts.add({ status: 'interrupted' });
    expect(counts.byStatus).toEqual({ complete: 2, partial: 1, failed: 0, skipped: 0, interrupted: 1 });
    expect(counts.checksFailed).toBe(1);
    expect(counts.total).toBe(4);
    expect(counts.allComplete).toBe(false);
  });

  it('calls a run all complete when every document is, and when none finished', () => {
    const counts = new OutcomeCounts();
    expect(counts.allComplete).toBe(true);
    counts.add({ status: 'complete', checks: { schema: '/schemas/invoice.json', passed: true, problems: [] } });
    expect(counts.allComplete).toBe(true);
    expect(counts.checksFailed).toBe(0);
  });
});

import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { jobsCsv, usageCsv } from '../../../src/cli/listing-csv.js';
import type { JobsOverview } from '../../../src/library/jobs.js';
import type { UsageReport } from '../../../src/library/usage.js';

const FORMULA_NAMES = ['=HYPERLINK("http://x.example","a, b")', '+1+cmd', '-2+3', '@SUM(A1)', "'quoted"];

function overviewWith(files: string[]): JobsOverview {
  return {
    jobs: [],
    unanswered: [],
    failedFiles: files.map((file) => ({
      kind: 'failed-file',
      account: '0123456789abcdef',
      run_finished_at: '2026-11-01T00:00:00.000Z',
      file,
      status: 'failed',
      code: 'extraction_failed',
      message: 'the service could not read it\nsecond line',
      resume: `docextract extract ${file}`,
    })),
    lastRuns: [],
  };
}

describe('jobs and usage as CSV (issue 55)', () => {
  it('writes a cell that starts like a formula as text (a leading quote, as export does), and quotes commas, quotes and line breaks', () => {
    const rows = parse(jobsCsv(overviewWith(FORMULA_NAMES), false)) as string[][];
    const file = rows[0]?.indexOf('file') ?? -1;
    expect(rows.slice(1).map((row) => row[file])).toEqual(FORMULA_NAMES.map((name) => `'${name}`));
    expect(rows[1]?.[rows[0]?.indexOf('message') ?? -1]).toBe('the service could not read it\nsecond line');
    // A number stays a number, a negative one included: it is data, not a formula.
    const usage = usageCsv(
      { rows: [{ key: '-2+3', credits: -1, requests: null, documents: 1, reused: 0, saved_credits: 0 }] } as unknown as UsageReport,
      'model',
      false,
    );
    expect(parse(usage)).toEqual([
      ['model', 'credits', 'requests', 'documents', 'reused', 'saved_credits'],
      ["'-2+3", '-1', '', '1', '0', '0'],
    ]);
  });

  it('on a terminal, renders what a file name holds that would act on it; to a file or a pipe, keeps it as it is', () => {
    const name = 'a\u001b]0;owned\u0007.pdf';
    const shown = jobsCsv(overviewWith([name]), true);
    expect(shown.includes('\u001b') || shown.includes('\u0007')).toBe(false);
    expect(jobsCsv(overviewWith([name]), false)).toContain(name);
  });
});

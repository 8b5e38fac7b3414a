import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { accountId } from '../../src/config/account-id.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../helpers/emulator-run.js';
import { CORPUS } from '../helpers/workspace.js';
import { keepOpenJobsJournal } from '../helpers/open-jobs-journal.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

/** The rows of a CSV document as a spreadsheet reads them: quotes, commas and line breaks undone. */
function csvRows(text: string): string[][] {
  expect(text.endsWith('\r\n'), JSON.stringify(text)).toBe(true);
  return parse(text, { relax_column_count: false }) as string[][];
}

/** A folder named as a spreadsheet formula, with a comma in it: a cell quoted, its name kept whole. */
const FORMULA_FOLDER = '@SUM(1,2)';

// Issue 55: jobs and usage for a spreadsheet or a report, and --json as --format json.
describe('jobs and usage --format table|csv|json', () => {
  let emulator: RunningEmulator;
  let env: NodeJS.ProcessEnv;
  let folder: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    env = emulatorEnv(emulator);
    folder = mkdtempSync(join(tmpdir(), 'docextract-formats-'));
    // A folder whose name a spreadsheet would run, extracted from its parent: `usage --by folder` names it so.
    mkdirSync(join(folder, FORMULA_FOLDER));
    copyFileSync(join(CORPUS, 'pdf/pages-1.pdf'), join(folder, FORMULA_FOLDER, 'one.pdf'));
    const good = await runCli(['extract', FORMULA_FOLDER, '--out', 'out'], { env, cwd: folder });
    expect(good.code, good.stderr).toBe(0);
    keepOpenJobsJournal(env.DOCEXTRACT_STATE_DIR as string, Date.now(), accountId(emulator.url, TEST_KEY));
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('jobs --format csv: a header row, then a row per job with the command that finishes it', async () => {
    const run = await runCli(['jobs', '--format', 'csv'], { env, cwd: folder });
    expect(run.code, run.stderr).toBe(0);
    const [header, ...rows] = csvRows(run.stdout);
    expect(header).toEqual([
      'kind',
      'account',
      'file',
      'status',
      'job_id',
      'chunks_done',
      'chunks_total',
      'sent_at',
      'until',
      'code',
      'message',
      'command',
      'run_in',
    ]);
    const column = (name: string): number => (header ?? []).indexOf(name);
    // This key's open jobs; a source's name with quotes, a `$(…)` and a backquote comes back as it is.
    const jobs = rows.filter((row) => row[column('kind')] === 'job');
    expect(jobs.map((row) => row[column('job_id')]).sort()).toEqual(['job_expired', 'job_named_badly', 'job_open_a']);
    expect(jobs.map((row) => row[column('file')])).toContain('/in/x"parentJobId":"job_planted"$(touch ran)`touch ran`.pdf');
    expect(jobs.find((row) => row[column('job_id')] === 'job_open_a')?.[column('command')]).toBe('docextract collect job_open_a');
    expect(rows.every((row) => row.length === header?.length)).toBe(true);
  });

  it('jobs --format json is --json, and with nothing listed both still print the summary', async () => {
    const asFormat = await runCli(['jobs', '--format', 'json'], { env, cwd: folder });
    const asJson = await runCli(['jobs', '--json'], { env, cwd: folder });
    expect(asFormat.code, asFormat.stderr).toBe(0);
    const withoutClock = (stdout: string): unknown[] =>
      stdout
        .trim()
        .split('\n')
        .map((line) => ({ ...JSON.parse(line), expires_in_ms: 0 }));
    expect(withoutClock(asFormat.stdout)).toEqual(withoutClock(asJson.stdout));
    const empty = await runCli(['jobs', '--format', 'json'], { env: isolatedEnv() });
    expect(JSON.parse(empty.stdout)).toMatchObject({ kind: 'summary', jobs: 0 });
    const emptyCsv = await runCli(['jobs', '--format', 'csv'], { env: isolatedEnv() });
    expect(csvRows(emptyCsv.stdout)).toHaveLength(1);
  });

  it('jobs --format table is the listing a person reads', async () => {
    const table = await runCli(['jobs', '--format', 'table'], { env, cwd: folder });
    const plain = await runCli(['jobs'], { env, cwd: folder });
    expect(table.stdout).toBe(plain.stdout);
    for (const id of ['job_open_a', 'job_named_badly']) expect(plain.stdout).toContain(id);
  });

  it('usage --format csv: a row per group, the first column named by --by; json is --json', async () => {
    const csv = await runCli(['usage', '--format', 'csv', '--by', 'folder'], { env, cwd: folder });
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = csvRows(csv.stdout);
    expect(header).toEqual(['folder', 'credits', 'requests', 'documents', 'reused', 'saved_credits']);
    const json = await runCli(['usage', '--format', 'json', '--by', 'folder'], { env, cwd: folder });
    const report = JSON.parse(json.stdout) as { rows: { key: string; documents: number }[] };
    expect(rows.map((row) => [row[0], Number(row[3])])).toEqual(report.rows.map((row) => [row.key, row.documents]));
    expect(rows.map((row) => row[0])).toEqual([join(folder, FORMULA_FOLDER)]);
  });

  it('--json with another --format is refused, not one of them silently chosen', async () => {
    const run = await runCli(['usage', '--json', '--format', 'csv'], { env, cwd: folder });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('invalid_option');
  });
});

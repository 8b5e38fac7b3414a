import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

/** Every line of an NDJSON output, each parsed (throws on a line that is not JSON). */
function ndjsonLines(stdout: string): Record<string, unknown>[] {
  expect(stdout.endsWith('\n'), JSON.stringify(stdout)).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// Issue 55: a --json output is never empty, so a script tells "nothing to list" from "no output at all".
describe('--json with nothing to list still prints a document', () => {
  it('jobs --json on an empty state folder prints one summary line', async () => {
    const run = await runCli(['jobs', '--json'], { env: isolatedEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(ndjsonLines(run.stdout)).toEqual([{ kind: 'summary', commands: 0, jobs: 0, unanswered_uploads: 0, failed_files: 0 }]);
  });

  it('check --json on a folder without results ends with its summary line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-json-always-'));
    writeFileSync(join(dir, 'invoice.schema.json'), JSON.stringify({ type: 'object' }));
    const results = join(dir, 'results');
    mkdirSync(results);
    const run = await runCli(['check', results, '--schema', `invoice=${join(dir, 'invoice.schema.json')}`, '--json'], { env: isolatedEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(ndjsonLines(run.stdout).at(-1)).toMatchObject({ kind: 'summary', results: 0, passed: 0, failed: 0 });
  });
});

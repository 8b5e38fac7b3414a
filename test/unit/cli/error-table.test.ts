/**
 * One home for error codes (issue 42): each error class carries its code, and one table
 * (cli/error-table.ts) maps a code to its exit code and hint. The README's table of exit codes
 * says the same, and a front door never swaps a feature's code for a generic one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/cli/error-table.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');

/** The README's table of exit codes: each row's exit code and the codes (`snake_case`) it names. */
function readmeExitRows(): { exit: number; codes: string[] }[] {
  const section = readme.slice(readme.indexOf('### Exit codes'), readme.indexOf('### Shell completion'));
  return [...section.matchAll(/^\| (\d+) \| (.*) \|$/gm)].map(([, exit, meaning]) => ({
    exit: Number(exit),
    codes: [...(meaning ?? '').matchAll(/`([a-z]+(?:_[a-z]+)+|[a-z]+)`/g)]
      .map((match) => match[1] as string)
      .filter((code) => Object.hasOwn(ERROR_TABLE, code)),
  }));
}

describe("the README's exit codes and the error table", () => {
  it('have the same exit codes', () => {
    expect(readmeExitRows().map((row) => row.exit)).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
  });

  it('give every code the README names the exit code of its row', () => {
    const rows = readmeExitRows();
    expect(rows.flatMap((row) => row.codes).length).toBeGreaterThan(15);
    for (const row of rows)
      for (const code of row.codes) expect({ code, exit: ERROR_TABLE[code as keyof typeof ERROR_TABLE].exit }).toEqual({ code, exit: row.exit });
  });

  it('name, in its row, every code that exits 3, 4 or 130', () => {
    const rows = readmeExitRows();
    for (const [code, outcome] of Object.entries(ERROR_TABLE)) {
      if (outcome.exit !== ExitCode.Auth && outcome.exit !== ExitCode.Budget && outcome.exit !== ExitCode.Interrupted) continue;
      expect(rows.find((row) => row.exit === outcome.exit)?.codes, code).toContain(code);
    }
  });

  it('agree wherever else the README says a code exits with a number', () => {
    const said = [...readme.matchAll(/exits? (\d+)(?:,| \() ?`([a-z_]+)`/g)].map(([, exit, code]) => ({ code, exit: Number(exit) }));
    expect(said.length).toBeGreaterThanOrEqual(3);
    for (const { code, exit } of said) expect({ code, exit: ERROR_TABLE[code as keyof typeof ERROR_TABLE]?.exit }).toEqual({ code, exit });
  });
});

describe("a command keeps a feature error's own code", () => {
  const missing = join(mkdtempSync(join(tmpdir(), 'docextract-codes-')), 'no-such-folder');

  it.each([
    ['check', ['check', missing], 'results_not_found'],
    ['export', ['export', missing, '--out', join(tmpdir(), 'docextract-codes-tables')], 'results_not_found'],
    ['review', ['review', missing], 'results_not_found'],
    ['extract --files-from', ['extract', '--files-from', join(missing, 'list.txt')], 'invalid_path_list'],
  ])('%s: exit 2 with %s', async (_name, args, code) => {
    const run = await runCli(['--json', ...args], { env: isolatedEnv({ DOCEXTRACT_API_KEY: 'sk_0123456789abcdef0123456789abcdef' }) });
    const { error } = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '') as { error: { code: string } };
    expect({ code: error.code, exit: run.code }).toEqual({ code, exit: 2 });
  });

  it('a schema file that is not JSON: exit 2 with invalid_schema and its hint', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'docextract-codes-'));
    writeFileSync(join(folder, 'invoice.json'), '{ not json');
    const run = await runCli(['--json', 'check', folder, '--schema', `invoice=${join(folder, 'invoice.json')}`], { env: isolatedEnv() });
    const { error } = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '') as { error: { code: string; hint: string } };
    expect({ code: error.code, exit: run.code }).toEqual({ code: 'invalid_schema', exit: 2 });
    expect(error.hint).toBe(ERROR_TABLE.invalid_schema.hint);
  });
});

/**
 * One home for error codes (issue 42): each error class carries its code, and one table
 * (cli/error-table.ts) maps a code to its exit code and hint. The generated reference
 * (docs/reference.md) is made from it, what the guides say agrees with it, and a front door never
 * swaps a feature's code for a generic one.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../../src/cli/error-table.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const docs = resolve(import.meta.dirname, '../../../docs');
/** The README and every page of docs/ (docs/api/ is TypeDoc's output, not ours). */
const pages = [
  'README.md',
  ...readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.startsWith('api'))
    .map((name) => join('docs', name)),
];
const text = pages.map((page) => readFileSync(resolve(docs, '..', page), 'utf8')).join('\n');

describe('the exit codes the docs give and the error table', () => {
  it('the generated reference lists every exit code (test/unit/docs/reference.test.ts holds each error code to it)', () => {
    const reference = readFileSync(join(docs, 'reference.md'), 'utf8');
    const section = reference.slice(reference.indexOf('## Exit codes and error codes'));
    const rows = [...section.matchAll(/^\| (\d+) \| /gm)].map(([, exit]) => Number(exit));
    expect(rows).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
  });

  it('agree wherever the README or a guide says a code exits with a number', () => {
    const said = [...text.matchAll(/exits? (\d+)(?:,| \() ?`([a-z_]+)`/g)].map(([, exit, code]) => ({ code, exit: Number(exit) }));
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

/**
 * What can be known without the service is said without it: an output
 * folder that is a file, an input that does not exist. Exit 2 (usage) for
 * the first, before anything is planned; the second reports the path and
 * never contacts the service.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function anyRequest(emu: RunningEmulator): number {
  return Object.values(emu.counters.requestsByEndpoint).reduce((a, b) => a + b, 0);
}

describe('output and input paths, checked before the service is asked', () => {
  it.each([
    ['extract', (ws: { inputs: string }, file: string) => ['extract', ws.inputs, '--out', file]],
    ['extract --dry-run', (ws: { inputs: string }, file: string) => ['extract', ws.inputs, '--out', file, '--dry-run']],
    ['extract, below a file', (ws: { inputs: string }, file: string) => ['extract', ws.inputs, '--out', join(file, 'sub')]],
    ['collect', (_ws: { inputs: string }, file: string) => ['collect', 'job_0123', '--out', file]],
    ['export', (ws: { inputs: string }, file: string) => ['export', ws.inputs, '--out', file]],
  ])('%s: an --out that is a file exits 2, naming it, and sends nothing', async (_label, args) => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    const file = join(ws.dir, 'results.txt');
    writeFileSync(file, 'not a folder');
    const run = await runCli(args(ws, file), { env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--out ${args(ws, file).at(args(ws, file).indexOf('--out') + 1)}`);
    expect(run.stderr).toContain('output_not_a_folder');
    expect(anyRequest(emulator)).toBe(0);
  });

  it('a mistyped input path is reported once, with its path once, and the service is never contacted', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const run = await runCli(['extract', './nope.pdf', '--out', ws.out], {
      env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
      cwd: ws.inputs,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('./nope.pdf: no such file or folder. (file_not_found)');
    expect(run.stdout).not.toContain('./nope.pdf: ./nope.pdf');
    expect(anyRequest(emulator)).toBe(0);
  });
});

describe('flags the service cannot have, refused before anything is sent', () => {
  it.each([
    [['--job-ttl', '2'], 'has no unit'],
    [['--job-ttl', '3h'], 'a job lives at most 2h'],
    [['--open-jobs', '9'], 'at most 5 open multi-page jobs'],
    [['--rate-limit', ''], '--rate-limit is empty'],
    [['--rate-limit', '10/fortnight'], 'unknown unit "fortnight"'],
  ])('%j: exit 2, with the reason', async (flags, said) => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...flags], {
      env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(said);
    expect(anyRequest(emulator)).toBe(0);
  });
});

describe('extracting in place', () => {
  it('`cd inbox; docextract extract .` never takes its own results (or the state folder) as inputs, run after run', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png', 'b.pdf': 'pdf/pages-2.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY, DOCEXTRACT_STATE_DIR: join(ws.inputs, '.state-here') });
    const first = await runCli(['extract', '.'], { env, cwd: ws.inputs });
    expect(first.code).toBe(0);
    const again = await runCli(['extract', '.'], { env, cwd: ws.inputs });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('docextract-out');
    expect(again.stderr).not.toContain('skipped');
    expect(again.stdout.trim().split('\n')).toHaveLength(2);
  });
});

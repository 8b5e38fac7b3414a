import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { DOCEXTRACT_BIN, type ChildResult } from '../../helpers/child-run.js';
import { emulatorEnv, startTestEmulator } from '../../helpers/emulator-run.js';
import { CORPUS, parseNdjson } from '../../helpers/workspace.js';
import { runCli } from '../../helpers/run-cli.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/**
 * The built CLI with `input` piped to its standard input, as `find ... -print0 | docextract ...` does:
 * the first test's names come through a real pipe; the others run in this process (issue 40: a spawn
 * costs ~0.8 CPU-s to start), their input a stream.
 */
function runWithStdin(args: string[], env: NodeJS.ProcessEnv, cwd: string, input: Buffer): Promise<ChildResult> {
  const child = spawn(process.execPath, [DOCEXTRACT_BIN, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('extract --files-from', () => {
  it('reads NUL-separated names from standard input: spaces, a newline in a name, a star, and a missing file as a per-file error', async () => {
    emulator = await startTestEmulator();
    const dir = mkdtempSync(join(tmpdir(), 'docextract-files-from-'));
    const names = ['with space.pdf', 'line\nbreak.png', 'star*name.jpg'];
    copyFileSync(join(CORPUS, 'pdf/pages-1.pdf'), join(dir, names[0] as string));
    copyFileSync(join(CORPUS, 'images/id-card.png'), join(dir, names[1] as string));
    copyFileSync(join(CORPUS, 'images/receipt.jpg'), join(dir, names[2] as string));
    const list = Buffer.from([...names, 'missing*.pdf', names[0]].map((name) => `${name}\0`).join(''));

    const run = await runWithStdin(['extract', '--files-from', '-', '-0', '--out', 'out', '--json', '--rate-limit', 'none'], emulatorEnv(emulator), dir, list);

    expect(run.code).toBe(1); // one listed file is missing
    const lines = parseNdjson(run.stdout) as { file: string; status: string; error?: { code: string } }[];
    const byFile = new Map(lines.map((line) => [line.file, line]));
    expect([...byFile.keys()].sort()).toEqual(['line\nbreak.png', 'missing*.pdf', 'star*name.jpg', 'with space.pdf']);
    for (const name of names) expect(byFile.get(name)?.status).toBe('complete');
    expect(byFile.get('missing*.pdf')).toMatchObject({ status: 'failed', error: { code: 'file_not_found' } });
    for (const name of names) expect(existsSync(join(dir, 'out', `${name}.json`))).toBe(true);
    expect(emulator.counters.requestsByEndpoint.documents).toBe(3); // the duplicate is taken once
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('combines a newline-separated list file with positional inputs', async () => {
    emulator = await startTestEmulator();
    const dir = mkdtempSync(join(tmpdir(), 'docextract-files-from-'));
    copyFileSync(join(CORPUS, 'pdf/pages-1.pdf'), join(dir, 'a.pdf'));
    copyFileSync(join(CORPUS, 'images/receipt.jpg'), join(dir, 'b.jpg'));
    const run = await runCli(['extract', 'a.pdf', '--files-from', '-', '--out', 'out', '--json', '--rate-limit', 'none'], {
      env: emulatorEnv(emulator),
      cwd: dir,
      stdin: 'b.jpg\r\n\n',
    });
    expect(run.code).toBe(0);
    expect((parseNdjson(run.stdout) as { file: string }[]).map((line) => line.file).sort()).toEqual(['a.pdf', 'b.jpg']);
  });

  it('without inputs or a list is a usage error; an unreadable list names itself', async () => {
    emulator = await startTestEmulator();
    const dir = mkdtempSync(join(tmpdir(), 'docextract-files-from-'));
    const none = await runCli(['extract'], { env: emulatorEnv(emulator), cwd: dir, stdin: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Name at least one file');
    const missing = await runCli(['extract', '--files-from', 'nope.txt'], { env: emulatorEnv(emulator), cwd: dir, stdin: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.txt: cannot be read \(ENOENT\)/);
    expect(emulator.counters.requestsByEndpoint.documents ?? 0).toBe(0);
  });
});

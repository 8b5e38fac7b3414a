/**
 * Private by default: on a machine others share, the state folder is this
 * user's alone (0700, files 0600, refused when others may write to it, no
 * links followed in it), a key given as --api-key is kept and shown nowhere,
 * a result is no more readable than its source, and `review --open` hands
 * the browser opener no token.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveReview } from '../../../src/results/corrections.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { TEST_KEY, UNTHROTTLED_FLAGS, emulatorEnv, filesBelow, startTestEmulator } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { startReviewCli } from '../../helpers/review-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { waitFor } from '../../helpers/wait-for.js';
import { makeWorkspace } from '../../helpers/workspace.js';

const KEY_BODY = TEST_KEY.slice('sk_'.length);

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function modeOf(path: string): string {
  return (lstatSync(path).mode & 0o777).toString(8);
}

/** Every entry of the state folder (files, the lock, the host's socket) with its mode. */
function modesIn(stateDir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(stateDir).map((name) => [name, modeOf(join(stateDir, name))]));
}

function expectAllPrivate(stateDir: string, when: string): void {
  expect(modeOf(stateDir), `the state folder ${when}`).toBe('700');
  const modes = modesIn(stateDir);
  expect(Object.keys(modes).length, `files ${when}`).toBeGreaterThan(0);
  expect(
    Object.entries(modes).filter(([, mode]) => mode !== '600'),
    `files not 0600 ${when}`,
  ).toEqual([]);
}

describe('--api-key is kept and shown nowhere', () => {
  it('while a run given --api-key hosts the state folder and after it: not in commands.json, jobs or any state file; one warning; every file 0600', async () => {
    const held = holdAnswersUntilReleased({ endpoints: ['documents'] });
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf', 'b.png': 'images/id-card.png' });
    const env = emulatorEnv(emu);
    delete env.DOCEXTRACT_API_KEY;
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    // The built CLI in a process of its own, the key on its argv: a leak of process.argv (commands.json, a state file) shows here only.
    const run = startChildCli(['--api-key', TEST_KEY, 'extract', ws.inputs, '--out', ws.out, '--concurrency', '1', ...UNTHROTTLED_FLAGS], env);
    try {
      await waitFor(() => emu.counters.requestsByEndpoint.documents > 0 && existsSync(join(stateDir, 'commands.json')), 'the run hosting, its upload held');
      const listed = readFileSync(join(stateDir, 'commands.json'), 'utf8');
      expect(listed).toContain("docextract --api-key '***' extract");
      expect(listed).not.toContain(KEY_BODY);
      for (const args of [['jobs'], ['jobs', '--json']]) {
        const jobs = await runCli(args, { env });
        expect(jobs.code, jobs.stderr).toBe(0);
        expect(jobs.stdout).toContain("--api-key '***' extract");
        expect(jobs.stdout + jobs.stderr).not.toContain(KEY_BODY);
      }
      expectAllPrivate(stateDir, 'while the run holds it (lock, commands.json, host.sock)');
      expect(Object.keys(modesIn(stateDir))).toEqual(expect.arrayContaining(['lock', 'commands.json', 'host.sock', 'journal.ndjson']));
    } finally {
      held.release();
    }
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr.match(/--api-key puts the key in this command's arguments/g)).toHaveLength(1);
    expect(done.stdout + done.stderr).not.toContain(KEY_BODY);
    for (const path of filesBelow(stateDir)) expect(readFileSync(path).toString('latin1').includes(KEY_BODY), path).toBe(false);
    expectAllPrivate(stateDir, 'after the run');
  });

  it('--api-key=<key> is taken out too, and --json keeps stdout to its lines', async () => {
    const emu = (emulator = await startTestEmulator());
    const env = emulatorEnv(emu);
    delete env.DOCEXTRACT_API_KEY;
    const run = await runCli([`--api-key=${TEST_KEY}`, 'whoami', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, source: 'flag' });
    expect(run.stderr).toContain("warning: --api-key puts the key in this command's arguments");
    expect(run.stderr).toContain('docextract config set api-key');
    expect(run.stderr).toContain('DOCEXTRACT_API_KEY');
  });
});

describe('the state folder is private', () => {
  it('a run makes it 0700 with every file 0600, and tightens what an older version left 0755 and 0644', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    mkdirSync(stateDir, { recursive: true });
    chmodSync(stateDir, 0o755);
    writeFileSync(join(stateDir, 'journal.ndjson'), '', { mode: 0o644 });
    chmodSync(join(stateDir, 'journal.ndjson'), 0o644);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env });
    expect(run.code, run.stderr).toBe(0);
    const names = readdirSync(stateDir);
    for (const kind of [/^journal\.ndjson$/, /^last-run-\w+\.json$/, /^sends-/, /^results-/, /^usage-/, /^models-/])
      expect(
        names.some((name) => kind.test(name)),
        `${kind} in ${names.join(', ')}`,
      ).toBe(true);
    expectAllPrivate(stateDir, 'after a run');
  });

  it('a state folder others may write to is refused before anything is sent: exit 2, state_dir_unsafe, the folder and the chmod named', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    mkdirSync(stateDir, { recursive: true });
    chmodSync(stateDir, 0o777);
    for (const args of [['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], ['jobs'], ['usage']]) {
      const run = await runCli(args, { env });
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`The state folder ${stateDir} is not private: others may write to it (mode 0777)`);
      expect(run.stderr).toContain(`chmod 700 ${stateDir}`);
      expect(run.stderr).toContain('(state_dir_unsafe)');
    }
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    expect(modeOf(stateDir)).toBe('777');
  });

  it('a journal planted as a link is refused by name, and the file it points at is left as it was', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf', '$(touch pwned).pdf': 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const target = join(ws.dir, 'bashrc');
    writeFileSync(target, 'echo hello\n');
    symlinkSync(target, join(stateDir, 'journal.ndjson'));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(stateDir, 'journal.ndjson')} is a symbolic link`);
    expect(run.stderr).toContain('(state_dir_unsafe)');
    expect(readFileSync(target, 'utf8')).toBe('echo hello\n');
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
  });
});

describe('a result is no more readable than its source', () => {
  it('a 0600 payslip gets a 0600 result (and its review beside it), a 0644 invoice a 0644 one', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'payslip.pdf': 'pdf/pages-1.pdf', 'invoice.pdf': 'pdf/pages-2.pdf' });
    chmodSync(join(ws.inputs, 'payslip.pdf'), 0o600);
    chmodSync(join(ws.inputs, 'invoice.pdf'), 0o644);
    const env = emulatorEnv(emu);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env });
    expect(run.code, run.stderr).toBe(0);
    const payslip = join(ws.out, 'payslip.pdf.json');
    expect(modeOf(payslip)).toBe('600');
    expect(modeOf(join(ws.out, 'invoice.pdf.json'))).toBe('644');

    const result = JSON.parse(readFileSync(payslip, 'utf8')) as Parameters<typeof saveReview>[1];
    await saveReview(payslip, result, { values: {}, approved: true }, new Date());
    expect(modeOf(`${payslip}.review.json`)).toBe('600');

    // Extracted again (--force), still 0600: the new file is made so, not widened by the rename.
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--force', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(statSync(payslip).mode & 0o777).toBe(0o600);
  });
});

describe('review --open', () => {
  it('hands the opener a private page that redirects to the URL: the token is in no argument', async () => {
    const ws = makeWorkspace({});
    mkdirSync(ws.out, { recursive: true });
    const bin = mkdtempSync(join(tmpdir(), 'docextract-opener-'));
    const seen = join(bin, 'seen');
    // A stand-in xdg-open: keeps its arguments, the modes of the page and its folder, and the page.
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${seen}.args"\nstat -c %a "$1" "$(dirname "$1")" > "${seen}.modes"\ncat "$1" > "${seen}.page"\ntouch "${seen}"\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const env = { ...emulatorEnv({ url: 'http://127.0.0.1:9' } as RunningEmulator), PATH: `${bin}:${process.env.PATH ?? ''}` };
    const review = await startReviewCli([ws.out, '--open'], env, ws.dir);
    const token = new URL(review.url).pathname.split('/')[1] ?? '';
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(() => existsSync(seen), 'the opener to run');
    const args = readFileSync(`${seen}.args`, 'utf8').trim().split('\n');
    expect(args).toHaveLength(1);
    expect(args[0]).not.toContain(token);
    expect(readFileSync(`${seen}.modes`, 'utf8').trim().split('\n')).toEqual(['600', '700']);
    expect(readFileSync(`${seen}.page`, 'utf8')).toContain(`<meta http-equiv="refresh" content="0;url=${review.url}">`);
    const stopped = await review.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(existsSync(args[0] ?? '')).toBe(false); // removed with the review
  });
});

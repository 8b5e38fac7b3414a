/**
 * After Ctrl-C, the state folder's records are facts: the journal says what
 * was sent (not what was meant to be), usage says what was charged (once),
 * and a forced run's finished files stay finished for its resume. Each
 * interruption comes at a point the test holds (a full rate window, an
 * answer held by the emulator), never inside a window of time. The commands
 * stopped by a signal are processes of their own; the others that read the
 * records or run to their end run in this process (a process start each was
 * most of the file's time), on the same state folder. A forced run is known
 * again by the arguments `main` was given, in a process or in this one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import { holdDocumentsUntilReleased } from '../helpers/held-answers.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function journalOf(env: NodeJS.ProcessEnv): string {
  const path = join(String(env.XDG_STATE_HOME), 'docextract', 'journal.ndjson');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

/** What `jobs --json` calls uploads possibly open on the server, by file. */
async function possiblyOpenUploads(env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = await runCli(['jobs', '--json'], { env });
  expect(listed.code, listed.stderr).toBe(0);
  return parseNdjson(listed.stdout)
    .filter((line) => line.kind === 'unanswered-upload')
    .map((line) => String(line.file));
}

describe('after Ctrl-C, the journal says what was sent', () => {
  it('an upload stopped while waiting for a rate slot is not listed as possibly open, before or after the resume', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const tight = ['--rate-limit', '5/h'];
    // Five small files (one request each) spend the window's five requests; the send log is kept, so the next run's upload waits for a slot.
    const spent = makeWorkspace({
      'a.pdf': 'pdf/pages-1.pdf',
      'b.pdf': 'pdf/pages-2.pdf',
      'c.pdf': 'pdf/pages-3.pdf',
      'd.jpg': 'images/receipt.jpg',
      'e.png': 'images/id-card.png',
    });
    const first = await runCli(['extract', spent.inputs, '--out', spent.out, '--json', ...tight], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(emulator.counters.requestsByEndpoint.documents).toBe(5);

    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf' });
    const four = sha256Of(join(ws.inputs, 'four.pdf'));
    const waiting = startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', ...tight], env);
    // The intent is journaled before the slot is asked for; the window is full for an hour.
    await waitFor(() => journalOf(env).includes('"upload-intent"'), 'the upload intent of four.pdf');
    waiting.child.kill('SIGINT');
    const stopped = await waiting.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(emulator.counters.uploadsBySha256[four], 'four.pdf never reached the service').toBeUndefined();

    expect(await possiblyOpenUploads(env)).toEqual([]);

    const resumed = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'four.pdf.json'), join(ws.inputs, 'four.pdf'), 4);
    expect(emulator.counters.uploadsBySha256[four]).toBe(1);
    expect(await possiblyOpenUploads(env)).toEqual([]);
  });
});

/** `usage --json`'s total credits over every run in the state folder. */
async function usageTotal(env: NodeJS.ProcessEnv): Promise<number> {
  const usage = await runCli(['usage', '--json'], { env });
  expect(usage.code, usage.stderr).toBe(0);
  return (JSON.parse(usage.stdout) as { total: { credits: number } }).total.credits;
}

describe('after Ctrl-C, usage says what was charged, once', () => {
  it('counts the credits of a run ended by a second Ctrl-C, and a resume does not count again what its predecessor paid for', async () => {
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf', 'four.pdf': 'pdf/pages-4.pdf' });
    const thirty = sha256Of(join(ws.inputs, 'thirty.pdf'));
    const four = sha256Of(join(ws.inputs, 'four.pdf'));
    // thirty.pdf's chunks after its third are held in run 1; four.pdf's upload (which charges nothing: it splits) is held in run 2.
    const thirtyChunks = holdDocumentsUntilReleased(['process']);
    const fourUpload = holdDocumentsUntilReleased(['documents']);
    let thirtyProcessed = 0;
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [],
      holdDocument: (endpoint, sha256) => {
        if (endpoint === 'process' && sha256 === thirty && ++thirtyProcessed === 4) thirtyChunks.hold(thirty);
        return thirtyChunks.holdDocument(endpoint, sha256) ?? fourUpload.holdDocument(endpoint, sha256);
      },
    });
    const emu = emulator;
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
    const flags = ['--out', ws.out, '--json', '--rate-limit', 'none'];

    // Run 1: thirty.pdf alone, one request at a time; Ctrl-C once its fourth chunk is held (three are paid), which the drain then finishes.
    const first = startChildCli(['extract', join(ws.inputs, 'thirty.pdf'), ...flags, '--concurrency', '1'], env);
    await waitFor(() => thirtyProcessed >= 4, "thirty.pdf's fourth chunk at the service");
    first.child.kill('SIGINT');
    await waitFor(() => first.stderrSoFar().includes('finishing the requests'), 'the first run to drain');
    thirtyChunks.release();
    const firstDone = await first.done;
    expect(firstDone.code, firstDone.stderr).toBe(130);
    expect(emu.counters.creditsCharged).toBe(12);
    expect(await usageTotal(env)).toBe(12);

    // Run 2: the resume finishes thirty.pdf while four.pdf's upload is held; then Ctrl-C twice.
    fourUpload.hold(four);
    const second = startChildCli(['extract', ws.inputs, ...flags, '--concurrency', '2'], env);
    await waitFor(() => second.stdoutSoFar().includes('thirty.pdf') && emu.counters.uploadsBySha256[four] === 1, 'thirty.pdf finished and four.pdf uploading');
    second.child.kill('SIGINT');
    await waitFor(() => second.stderrSoFar().includes('finishing the requests'), 'the second run to drain');
    second.child.kill('SIGINT');
    const secondDone = await second.done;
    expect(secondDone.code, secondDone.stderr).toBe(130);
    expect(secondDone.stderr).toContain('exiting now');
    expect(emu.counters.creditsCharged).toBe(30);
    expect(await usageTotal(env)).toBe(30);

    // Run 3: four.pdf, uploaded anew (its held upload opened a job it never heard of, and charged nothing).
    fourUpload.release();
    const third = await runCli(['extract', ws.inputs, ...flags], { env });
    expect(third.code, third.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'thirty.pdf.json'), join(ws.inputs, 'thirty.pdf'), 30);
    expectCompleteResult(join(ws.out, 'four.pdf.json'), join(ws.inputs, 'four.pdf'), 4);
    expect(emu.counters.creditsCharged).toBe(34);
    expect(await usageTotal(env)).toBe(emu.counters.creditsCharged);
  });
});

describe('a forced run, interrupted, resumes as its own advice says', () => {
  it('the same command with --force keeps what the forced run extracted and extracts again only what it had not reached: each page charged twice at most', async () => {
    const ws = makeWorkspace({ 'j1.pdf': 'pdf/pages-7.pdf', 'j2.pdf': 'pdf/pages-4.pdf', 'a.pdf': 'pdf/pages-2.pdf', 'b.jpg': 'images/receipt.jpg' });
    const PAGES = 7 + 4 + 2 + 1;
    const sha = (name: string): string => sha256Of(join(ws.inputs, name));
    // j2.pdf's chunks are held in the forced run: by then j1.pdf (the larger, first) is finished; a.pdf and b.jpg are not reached.
    const j2Chunks = holdDocumentsUntilReleased(['process']);
    let j2ChunksHeld = 0;
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [],
      holdDocument: (endpoint, sha256) => {
        const hold = j2Chunks.holdDocument(endpoint, sha256);
        if (hold) j2ChunksHeld += 1;
        return hold;
      },
    });
    const emu = emulator;
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
    const command = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '1', '--force'];

    const plain = await runCli(
      command.filter((arg) => arg !== '--force'),
      { env },
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(emu.counters.creditsCharged).toBe(PAGES);

    j2Chunks.hold(sha('j2.pdf'));
    const forced = startChildCli(command, env);
    await waitFor(() => j2ChunksHeld >= 1, "j2.pdf's first chunk at the service");
    forced.child.kill('SIGINT');
    await waitFor(() => forced.stderrSoFar().includes('finishing the requests'), 'the forced run to drain');
    j2Chunks.release();
    const stopped = await forced.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('Resume by running the same command again');
    const finished = parseNdjson(stopped.stdout)
      .filter((line) => line.status === 'complete')
      .map((line) => String(line.file));
    expect(
      finished.some((file) => file.endsWith('j1.pdf')),
      stopped.stdout,
    ).toBe(true);
    const paidBefore = emu.counters.creditsCharged;

    const preview = await runCli([...command, '--dry-run'], { env });
    expect(preview.code, preview.stderr).toBe(0);
    const previewed = JSON.parse(preview.stdout) as { files: { file: string; action: string }[]; total: { credits: number } };
    expect(previewed.files.find((file) => file.file.endsWith('j1.pdf'))?.action).toBe('reuse');

    const resumed = await runCli(command, { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const [name, pages] of [
      ['j1.pdf', 7],
      ['j2.pdf', 4],
      ['a.pdf', 2],
    ] as const)
      expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    expect(emu.counters.creditsCharged - paidBefore, 'the dry run said what the resume would cost').toBe(previewed.total.credits);
    expect(emu.counters.creditsCharged, 'once before --force, once forced').toBe(2 * PAGES);
    for (const name of ['j1.pdf', 'j2.pdf', 'a.pdf', 'b.jpg']) expect(emu.counters.uploadsBySha256[sha(name)], name).toBe(2);

    // The forced run has ended: the same command forces every file again.
    const again = await runCli(command, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(emu.counters.creditsCharged).toBe(3 * PAGES);
  });
});

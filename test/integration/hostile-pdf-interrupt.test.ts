/**
 * SIGTERM and Ctrl-C stop a command while a hostile PDF's pages are being
 * counted (issue 39): the count is ended by the stop, not by its budget.
 * Each test waits for the debug line that says the count started, sends the
 * signal, and checks that the file was reported `interrupted` (a count that
 * ran to its budget says `pdf_too_complex`, about two seconds in) and that
 * no line says the count ended by itself. The stopped command is a process
 * of its own; the watch it rides along on runs in this process (stopped as
 * a SIGTERM would), told apart from it by pid in the host's record.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractDocuments, type DocumentOutcome } from '../../src/index.js';
import { startChildCli, type ChildResult, type RunningChild } from '../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, startTestEmulator, TEST_KEY, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { hostilePdf } from '../helpers/hostile-pdf.js';
import { inProcessCommands } from '../helpers/in-process-command.js';
import { commandRig, runningCommands, waitFor } from '../helpers/one-client.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const rig = commandRig();
const startInProcess = inProcessCommands();

/** 5 × 56 MB: past the default 256 MiB once each stream is inflated once; counting it to its budget takes about two seconds. */
const HOSTILE = { pages: 50, streams: 5, inflatedBytesPerStream: 56 * 1024 * 1024 };

/** How extract slices its files (engine/running-window.ts PLAN_SLICE): a file after this many is checked while the run goes. */
const FIRST_SLICE = 500;

const countStarted = (name: string) => new RegExp(`^debug: counting the pages of "[^"\\n]*${name}"$`, 'm');
const countEnded = (name: string) => new RegExp(`^debug: (counted|gave up counting) the pages of "[^"\\n]*${name}"$`, 'm');

/** Waits for the count of `name` to be under way, then sends `signal`; the command's end. */
async function stopWhileCounting(run: RunningChild, name: string, signal: NodeJS.Signals): Promise<ChildResult> {
  await waitFor(() => countStarted(name).test(run.stderrSoFar()), `the page count of ${name} to start`);
  run.child.kill(signal);
  return run.done;
}

function expectStoppedDuringCount(ended: { code: number | null; stdout: string; stderr: string }, name: string): void {
  expectNoStackTrace(ended.stderr);
  expect(ended.code, ended.stderr).toBe(130);
  expect(ended.stderr).toMatch(countStarted(name));
  expect(ended.stderr).not.toMatch(countEnded(name));
  const line = parseNdjson(ended.stdout).find((outcome) => String(outcome.file).endsWith(name));
  expect(line, ended.stdout).toMatchObject({ status: 'interrupted', error: { code: 'interrupted' } });
}

describe('a stop while a hostile PDF is being counted', () => {
  it('Ctrl-C stops extract while it checks a file of a later slice: the file is interrupted, not refused', async () => {
    const emu = (rig.emulator = await startTestEmulator());
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    // The first slice is refused locally (not PDFs by their content), so the run asks for the next at once.
    for (let index = 0; index < FIRST_SLICE; index++) writeFileSync(join(ws.inputs, `a${String(index).padStart(4, '0')}.pdf`), 'not a PDF\n');
    writeFileSync(join(ws.inputs, 'z-hostile.pdf'), hostilePdf(HOSTILE));
    const run = rig.track(
      startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], emulatorEnv(emu, { DOCEXTRACT_LOG: 'debug' })),
    );

    const ended = await stopWhileCounting(run, 'z-hostile.pdf', 'SIGINT');

    expectStoppedDuringCount(ended, 'z-hostile.pdf');
    expect(ended.stderr).toMatch(/SIGINT: finishing the requests in flight/);
    expect(emu.counters.creditsCharged).toBe(0);
  });

  it('Ctrl-C stops extract riding along on a watch while it checks a file of a later slice: the file is interrupted, not refused', async () => {
    const emu = (rig.emulator = await startTestEmulator());
    const ws = makeWorkspace({});
    mkdirSync(join(ws.inputs, 'batch'), { recursive: true });
    mkdirSync(join(ws.inputs, 'inbox'), { recursive: true });
    for (let index = 0; index < FIRST_SLICE; index++) writeFileSync(join(ws.inputs, 'batch', `a${String(index).padStart(4, '0')}.pdf`), 'not a PDF\n');
    writeFileSync(join(ws.inputs, 'batch', 'z-hostile.pdf'), hostilePdf(HOSTILE));
    const env = emulatorEnv(emu, { DOCEXTRACT_LOG: 'debug' });
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const host = startInProcess(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-w'), '--json', '--settle', '100ms', ...UNTHROTTLED_FLAGS], env);
    try {
      await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === process.pid), 'the watch to host');
      const run = rig.track(startChildCli(['extract', join(ws.inputs, 'batch'), '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], env));

      const ended = await stopWhileCounting(run, 'z-hostile.pdf', 'SIGINT');

      expectStoppedDuringCount(ended, 'z-hostile.pdf');
      // It rode along: the watch held the state folder throughout.
      expect(runningCommands(stateDir).find((command) => command.role === 'host')?.pid).toBe(process.pid);
    } finally {
      await host.interrupt(); // as a SIGTERM would: a watch never ends by itself
    }
    expect((await host.done).code).toBe(130);
  });

  it("Ctrl-C during extract --dry-run's count (or the first slice's, before a run listens for signals) ends the process by the signal itself", async () => {
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    writeFileSync(join(ws.inputs, 'hostile.pdf'), hostilePdf(HOSTILE));
    const env = isolatedEnv({
      DOCEXTRACT_BASE_URL: 'https://docextract.invalid',
      DOCEXTRACT_API_KEY: 'sk_0123456789abcdef0123456789abcdef',
      DOCEXTRACT_LOG: 'debug',
    });
    const run = rig.track(startChildCli(['extract', ws.inputs, '--dry-run'], env));

    const ended = await stopWhileCounting(run, 'hostile.pdf', 'SIGINT');

    // Nothing is sent or saved yet: Node's own handling of the signal ends the process (the shell says 130) with the count.
    expect(ended.signal).toBe('SIGINT');
    expect(ended.stderr).not.toMatch(countEnded('hostile.pdf'));
    expect(ended.stdout).not.toContain('pdf_too_complex');
  });

  it('SIGTERM stops a watch that rides along on another command while it checks an arrival', async () => {
    const emu = (rig.emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'hosted/one.pdf': 'pdf/pages-1.pdf' });
    mkdirSync(join(ws.inputs, 'inbox'));
    const env = emulatorEnv(emu, { DOCEXTRACT_LOG: 'debug' });
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const flags = ['--json', '--settle', '100ms', ...UNTHROTTLED_FLAGS];
    const host = startInProcess(['watch', join(ws.inputs, 'hosted'), '--out', join(ws.dir, 'out-h'), ...flags], env);
    try {
      await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === process.pid), 'the first watch to host');
      const rider = rig.track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-r'), ...flags], env));
      await waitFor(
        () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === rider.child.pid),
        'the second watch to ride along',
      );
      await waitFor(() => rider.stderrSoFar().includes('watching '), 'the second watch to watch its folder');
      writeFileSync(join(ws.dir, 'hostile.pdf'), hostilePdf(HOSTILE));
      // Moved in whole: the watch sees the file at its full size.
      renameSync(join(ws.dir, 'hostile.pdf'), join(ws.inputs, 'inbox', 'hostile.pdf'));

      const ended = await stopWhileCounting(rider, 'hostile.pdf', 'SIGTERM');

      expectStoppedDuringCount(ended, 'hostile.pdf');
    } finally {
      await host.interrupt(); // as a SIGTERM would: a watch never ends by itself
    }
    expect((await host.done).code).toBe(130);
  });

  it('SIGTERM stops a watch that hosts while it checks an arrival', async () => {
    const emu = (rig.emulator = await startTestEmulator());
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const run = rig.track(
      startChildCli(['watch', ws.inputs, '--out', ws.out, '--json', '--settle', '100ms', ...UNTHROTTLED_FLAGS], emulatorEnv(emu, { DOCEXTRACT_LOG: 'debug' })),
    );
    await waitFor(() => run.stderrSoFar().includes('watching '), 'the watch to watch its folder');
    writeFileSync(join(ws.dir, 'hostile.pdf'), hostilePdf(HOSTILE));
    renameSync(join(ws.dir, 'hostile.pdf'), join(ws.inputs, 'hostile.pdf'));

    const ended = await stopWhileCounting(run, 'hostile.pdf', 'SIGTERM');

    expectStoppedDuringCount(ended, 'hostile.pdf');
  });

  it("the library's list run (MCP's extract tool) hears its signal in the page counts: a stopped run leaves the file interrupted, uncounted", async () => {
    const emu = (rig.emulator = await startTestEmulator());
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    writeFileSync(join(ws.inputs, 'hostile.pdf'), hostilePdf(HOSTILE));
    const stop = new AbortController();
    // Stopped before it starts: no count may run to its budget (pdf_too_complex) once the caller has said stop.
    stop.abort();
    const run = extractDocuments([ws.inputs], {
      apiKey: TEST_KEY,
      baseUrl: emu.url,
      out: ws.out,
      stateDir: emulatorEnv(emu).DOCEXTRACT_STATE_DIR as string,
      rateLimit: 'none',
      signal: stop.signal,
    });
    const outcomes: DocumentOutcome[] = [];
    for await (const outcome of run) outcomes.push(outcome);
    await run.done;

    expect(outcomes).toEqual([expect.objectContaining({ status: 'interrupted', error: expect.objectContaining({ code: 'interrupted' }) })]);
    expect(emu.counters.creditsCharged).toBe(0);
  });
});

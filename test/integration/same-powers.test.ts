/**
 * The same powers through every door (issue 53): one table of cases, each run through the CLI's
 * `extract`, the CLI's `watch`, the client in-process (`new DocExtract(...).extract`) and MCP's
 * `extract`, each door in a workspace and state folder of its own, comparing what each produced:
 * the statuses, the result files (a 151-page PDF in two parts, its one result listing them) and
 * the credits charged; then the same inputs again, each answered from disk at no charge. Then the
 * same inputs while another command (a `watch`) holds the state folder: each door's run rides along
 * on it (the host's record lists the door's run with its files, seen while the service's answers
 * are held), and produces the same. And a result a person corrected (`<result>.review.json`),
 * reused by each door into another folder: not extracted again, its review carried along, and its
 * corrected data in the door's outcome. And a forced run interrupted once the door has reported its
 * first document (the other one's answers held at the service until then), run again: it resumes,
 * keeping what the interrupted run extracted and paying for nothing twice; and, with small inputs (a
 * 4-page PDF and an image), the same forced run interrupted on its own and run again beside a watch
 * that holds the state folder: it rides along, resumes, and then has ended.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocExtract } from '../../src/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased, holdDocumentsBut, type HeldAnswers, type HeldOthers } from '../helpers/held-answers.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { startMcpInProcess, type InProcessMcp } from '../helpers/mcp-run.js';
import { commandRig, runningCommands, waitFor } from '../helpers/one-client.js';
import { runCli } from '../helpers/run-cli.js';
import { correctedByAPerson } from '../helpers/result-document.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

let emu: RunningEmulator;
let statementPdf: Buffer;
/** The hold of the ride-along case: the emulator's answers wait while it holds. */
let held: HeldAnswers | undefined;
/** The hold of the forced case: the requests of every document but the one let through wait while it holds. */
let heldOthers: HeldOthers | undefined;
beforeAll(async () => {
  emu = await startTestEmulator({
    holdAnswer: (endpoint) => held?.holdAnswer(endpoint),
    holdDocument: (endpoint, sha256) => heldOthers?.holdDocument(endpoint, sha256),
  });
  statementPdf = await labelledPdf('Statement', 151);
});
afterAll(() => emu.close());
// The host watch of the ride-along case: killed after a test that failed before stopping it.
const rig = commandRig();

interface Workspace {
  dir: string;
  inputs: string;
  out: string;
  env: NodeJS.ProcessEnv;
}

/** What a door reports of each file it finished, by name: its status, whether it was answered from disk or reviewed, its data. */
type Finished = Record<string, { status: string; reused: boolean; reviewed: boolean; data?: unknown }>;

const finishedOf = (lines: readonly Record<string, unknown>[]): Finished =>
  Object.fromEntries(lines.map((line) => [basename(String(line.file)), doneOf(line)]));

function doneOf(outcome: { status?: unknown; reused?: unknown; reviewed?: unknown; data?: unknown }): Finished[string] {
  return { status: String(outcome.status), reused: Boolean(outcome.reused), reviewed: outcome.reviewed === true, data: outcome.data };
}

/** Each file's status, and whether it was answered from disk. */
const statuses = (finished: Finished): Record<string, { status: string; reused: boolean }> =>
  Object.fromEntries(Object.entries(finished).map(([name, { status, reused }]) => [name, { status, reused }]));

/** A door's run interrupted at a point the test holds. */
interface Interruption {
  /** Told of what the door has reported so far: a promise when the door is to be interrupted (once it settles). */
  at: (reported: Finished) => Promise<void> | undefined;
  /** The door's run was told to stop and sends nothing new from now on: what the test held may go. */
  stopped: () => void;
}

/** How a door runs: `force` (`--force`, `{ force: true }`, MCP's `force`), interrupted or not. */
interface DoorRun {
  force?: boolean;
  interrupt?: Interruption;
}

/** Interrupts a door once, when `interruption` says: `stop` (resolving once the run was told), then `stopped`. */
function interrupter(interruption: Interruption | undefined, stop: () => void | Promise<void>): (reported: Finished) => void {
  let asked = false;
  return (reported) => {
    const at = asked ? undefined : interruption?.at(reported);
    if (!at || !interruption) return;
    asked = true;
    // A failed wait still stops the door and lets the hold go: the door's end then says what went wrong.
    void at.finally(async () => {
      await stop();
      interruption.stopped();
    });
  };
}

/** Every door, as a person or a program meets it: the inputs folder in, each file's outcome out. */
const DOORS: Record<string, (ws: Workspace, how?: DoorRun) => Promise<Finished>> = {
  'CLI extract': async (ws, how = {}) => {
    const stop = new AbortController();
    let stdout = '';
    const reported = (): Finished => finishedOf(parseNdjson(stdout).filter((line) => line.kind !== 'summary'));
    const interrupt = interrupter(how.interrupt, () => stop.abort());
    const run = await runCli(['--json', 'extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none', ...(how.force ? ['--force'] : [])], {
      env: ws.env,
      cwd: ws.dir,
      stop: stop.signal,
      onOutput: (stream, chunk) => {
        if (stream !== 'stdout') return;
        stdout += chunk;
        interrupt(reported());
      },
    });
    expect(run.code, run.stderr).toBe(how.interrupt ? 130 : 0);
    return reported();
  },
  'CLI watch': async (ws, how = {}) => {
    const stop = new AbortController();
    let stdout = '';
    const lines = (): Record<string, unknown>[] => parseNdjson(stdout).filter((line) => line.file !== undefined);
    const interrupt = interrupter(how.interrupt, () => stop.abort());
    const ended = runCli(['--json', 'watch', ws.inputs, '--out', ws.out, '--rate-limit', 'none', '--settle', '100ms', ...(how.force ? ['--force'] : [])], {
      env: ws.env,
      cwd: ws.dir,
      stop: stop.signal,
      onOutput: (stream, chunk) => {
        if (stream === 'stdout') stdout += chunk;
        interrupt(finishedOf(lines()));
        if (lines().length === 2) stop.abort();
      },
    });
    const run = await ended;
    expect(run.code, run.stderr).toBe(130);
    return finishedOf(lines());
  },
  'the client in-process': async (ws, how = {}) => {
    const dx = new DocExtract({ apiKey: TEST_KEY, baseUrl: emu.url, stateDir: ws.env.DOCEXTRACT_STATE_DIR as string, rateLimit: 'none', cwd: ws.dir });
    const run = dx.extract([ws.inputs], { out: ws.out, tuneHeap: false, ...(how.force ? { force: true } : {}) });
    const interrupt = interrupter(how.interrupt, () => run.cancel());
    const finished: Finished = {};
    for await (const outcome of run) {
      finished[basename(outcome.file)] = doneOf(outcome);
      interrupt(finished);
    }
    const report = await run.done;
    if (how.interrupt) expect(report.interrupted).toBe(true);
    else expect(report.counts.complete).toBe(2);
    return finished;
  },
  'MCP extract': async (ws, how = {}) => {
    const session = await startMcpInProcess({ out: ws.out, env: ws.env, cwd: ws.dir });
    try {
      const args = { paths: [ws.inputs], ...(how.force ? { force: true } : {}) };
      if (how.interrupt) return await cancelledCall(session, args, ws, how.interrupt);
      const answer = await session.client.callTool({ name: 'extract', arguments: args });
      expect(answer.isError, JSON.stringify(answer.structuredContent)).toBeFalsy();
      return finishedOf((answer.structuredContent as { documents: Record<string, unknown>[] }).documents);
    } finally {
      await session.close();
    }
  },
};

/**
 * MCP's extract cancelled by its caller (the call's AbortSignal: the SDK sends `notifications/cancelled`).
 * What it reported is its progress (`complete in/receipt.jpg (1 of 2)`): a cancelled call gets no answer.
 */
async function cancelledCall(session: InProcessMcp, args: Record<string, unknown>, ws: Workspace, interruption: Interruption): Promise<Finished> {
  const stateDir = ws.env.DOCEXTRACT_STATE_DIR as string;
  const hosting = (): boolean => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === process.pid);
  const cancel = new AbortController();
  const reported: Finished = {};
  const interrupt = interrupter(interruption, async () => {
    cancel.abort();
    // The server handles messages in the order they came: once it has answered a ping sent after the cancellation,
    // it has handled that too (the call's signal aborted, the run told to stop): the run sends nothing new.
    await session.client.ping();
    // The run still holds the state folder (its answers are held): its record is gone once it has drained and ended.
    await waitFor(hosting, 'the MCP server to host the cancelled run');
  });
  const call = session.client.callTool({ name: 'extract', arguments: args }, undefined, {
    signal: cancel.signal,
    onprogress: ({ message }) => {
      const step = /^(\w+) (.+) \(\d+ of \S+\)$/.exec(message ?? '');
      if (!step) return;
      reported[basename(step[2] as string)] = { status: step[1] as string, reused: false, reviewed: false };
      interrupt(reported);
    },
  });
  await expect(call).rejects.toThrow();
  // The server drains a cancelled call after the caller stopped waiting: the next run must not begin before it ended.
  await waitFor(() => !hosting(), 'the cancelled run to drain and end');
  return reported;
}

interface PartsResult {
  status: string;
  parts: { source_pages: number[]; status: string }[];
}

/** A workspace of the table's inputs (a 151-page PDF and an image), with a state folder of its own. */
function statementAndReceipt(): Workspace {
  const made = makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg' });
  mkdirSync(made.inputs, { recursive: true });
  writeFileSync(join(made.inputs, 'statement.pdf'), statementPdf);
  return { ...made, env: emulatorEnv(emu) };
}

/** What every door leaves in its output folder: the PDF's one result, complete, listing its two parts. */
function expectStatementInParts(out: string): void {
  const statement = JSON.parse(readFileSync(join(out, 'statement.pdf.json'), 'utf8')) as PartsResult;
  expect(statement.status).toBe('complete');
  expect(statement.parts.map((part) => [part.status, part.source_pages.length])).toEqual([
    ['complete', 150],
    ['complete', 1],
  ]);
}

/** A workspace of small inputs (a 4-page PDF, sent as one job of two chunks, and an image), with a state folder of its own. */
function fourPagesAndReceipt(): Workspace {
  return { ...makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg', 'four.pdf': 'pdf/pages-4.pdf' }), env: emulatorEnv(emu) };
}

/** A `watch` of an empty folder holding the workspace's state folder: every run beside it rides along on it. */
async function hostingWatch(ws: Workspace): Promise<ReturnType<typeof startChildCli>> {
  const idle = join(ws.dir, 'idle');
  mkdirSync(idle);
  const host = rig.track(startChildCli(['watch', idle, '--out', join(ws.dir, 'out-host'), '--json', '--rate-limit', 'none', '--settle', '100ms'], ws.env));
  const stateDir = ws.env.DOCEXTRACT_STATE_DIR as string;
  await waitFor(
    () => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid),
    'the watch to hold the state folder',
  );
  return host;
}

/**
 * The door's forced run, interrupted once it has reported the receipt and `uploads` uploads of the other document are
 * at the service: the answers to every upload but the receipt's are held until the run was told to stop, so the
 * interruption always lands between the two.
 */
async function forcedRunInterruptedAfterReceipt(
  ws: Workspace,
  run: (ws: Workspace, how?: DoorRun) => Promise<Finished>,
  uploads: number,
  what: string,
): Promise<Finished> {
  const others = holdDocumentsBut(['documents'], [sha256Of(join(ws.inputs, 'receipt.jpg'))]);
  heldOthers = others;
  try {
    return await run(ws, {
      force: true,
      interrupt: {
        at: (reported) => (reported['receipt.jpg'] === undefined ? undefined : waitFor(() => others.held() === uploads, what, 100_000)),
        stopped: () => others.release(),
      },
    });
  } finally {
    others.release();
    heldOthers = undefined;
  }
}

const FRESH = { 'statement.pdf': { status: 'complete', reused: false }, 'receipt.jpg': { status: 'complete', reused: false } };
const FRESH_SMALL = { 'four.pdf': { status: 'complete', reused: false }, 'receipt.jpg': { status: 'complete', reused: false } };

describe('the same powers through every door', () => {
  it.each(Object.keys(DOORS))(
    '%s: a 151-page PDF in parts and an image, charged once; run again, each answered from disk at no charge',
    { timeout: 120_000 },
    async (door) => {
      const ws = statementAndReceipt();
      const run = DOORS[door] as (ws: Workspace) => Promise<Finished>;

      const chargedBefore = emu.counters.creditsCharged;
      expect(statuses(await run(ws))).toEqual(FRESH);
      // 151 pages in two parts and the image's one page: each charged once, whichever door.
      expect(emu.counters.creditsCharged - chargedBefore).toBe(152);
      expectStatementInParts(ws.out);

      const chargedFirst = emu.counters.creditsCharged;
      expect(statuses(await run(ws))).toEqual({ 'statement.pdf': { status: 'complete', reused: true }, 'receipt.jpg': { status: 'complete', reused: true } });
      expect(emu.counters.creditsCharged).toBe(chargedFirst);
    },
  );

  it.each(Object.keys(DOORS))(
    '%s: while a watch holds the state folder, the run rides along on it (the host lists it with its files) and produces the same',
    { timeout: 120_000 },
    async (door) => {
      const ws = statementAndReceipt();
      const stateDir = ws.env.DOCEXTRACT_STATE_DIR as string;
      const host = await hostingWatch(ws);
      const hostPid = host.child.pid;

      // Every answer but the free checks waits: the door cannot finish (nor run alone) before the host lists it riding along.
      held = holdAnswersUntilReleased();
      const chargedBefore = emu.counters.creditsCharged;
      const produced = (DOORS[door] as (ws: Workspace) => Promise<Finished>)(ws);
      try {
        // The door runs in this process: the host's record lists it under this pid, with its files submitted (the PDF's two parts and the image).
        await waitFor(
          () => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === process.pid && command.queued === 3),
          `the ${door} run to ride along on the watch with its files`,
          100_000,
          () => runningCommands(stateDir),
        );
        expect(runningCommands(stateDir).filter((command) => command.role === 'host')).toEqual([expect.objectContaining({ pid: hostPid })]);
      } finally {
        held.release();
        held = undefined;
      }
      expect(statuses(await produced)).toEqual(FRESH);
      expect(emu.counters.creditsCharged - chargedBefore).toBe(152);
      expectStatementInParts(ws.out);

      host.child.kill('SIGTERM');
      const hostDone = await host.done;
      expect(hostDone.code, hostDone.stderr).toBe(130);
      // The host took nothing of its own: its folder was empty.
      expect(parseNdjson(hostDone.stdout).filter((line) => line.file !== undefined)).toEqual([]);
    },
  );

  it.each(Object.keys(DOORS))(
    '%s: a result a person corrected is reused into another folder, not extracted again: its review goes along, its outcome carries the corrected data',
    { timeout: 120_000 },
    async (door) => {
      // Small inputs: a PDF in parts answered from disk is the first case's rerun; here it is the review that goes along.
      const ws = fourPagesAndReceipt();
      const run = DOORS[door] as (ws: Workspace) => Promise<Finished>;
      expect(statuses(await run(ws))).toEqual(FRESH_SMALL);

      // A person's correction, beside the receipt's result, made for this very extraction (as the review page saves it).
      const result = join(ws.out, 'receipt.jpg.json');
      const extracted = JSON.parse(readFileSync(result, 'utf8')) as { data: Record<string, unknown> };
      const corrected = { ...extracted.data, total: 'CORRECTED BY A PERSON' };
      const review = await correctedByAPerson(result, { total: 'CORRECTED BY A PERSON' });

      const requestsBefore = { ...emu.counters.requestsByEndpoint };
      const chargedBefore = emu.counters.creditsCharged;
      const again = await run({ ...ws, out: join(ws.dir, 'out-again') });
      expect(statuses(again)).toEqual({ 'four.pdf': { status: 'complete', reused: true }, 'receipt.jpg': { status: 'complete', reused: true } });
      expect(again['receipt.jpg']).toMatchObject({ reviewed: true, data: corrected });
      expect(again['four.pdf']?.reviewed).toBe(false);
      // Nothing sent, nothing charged.
      expect(emu.counters.creditsCharged).toBe(chargedBefore);
      expect(emu.counters.requestsByEndpoint.documents).toBe(requestsBefore.documents);
      // The review went along with the result, and still applies there; the original is as the person left it.
      const carried = join(ws.dir, 'out-again', 'receipt.jpg.json.review.json');
      expect(existsSync(carried)).toBe(true);
      expect(JSON.parse(readFileSync(carried, 'utf8'))).toMatchObject({ corrections: review.corrections, approved: true });
      expect(JSON.parse(readFileSync(`${result}.review.json`, 'utf8'))).toEqual(review);
      expect((JSON.parse(readFileSync(join(ws.dir, 'out-again', 'receipt.jpg.json'), 'utf8')) as { data: unknown }).data).toEqual(extracted.data);
    },
  );

  it.each(Object.keys(DOORS))(
    '%s: a forced run interrupted after its first document resumes when run again: what it extracted is kept, nothing paid twice; then it has ended',
    { timeout: 120_000 },
    async (door) => {
      const ws = statementAndReceipt();
      const run = DOORS[door] as (ws: Workspace, how?: DoorRun) => Promise<Finished>;
      expect(statuses(await run(ws))).toEqual(FRESH);

      // The statement's two parts are held at the service (their uploads' answers) until the door has reported the
      // receipt, extracted again, and has been interrupted: the interruption always lands between the two.
      const chargedBefore = emu.counters.creditsCharged;
      const interrupted = await forcedRunInterruptedAfterReceipt(ws, run, 2, "the statement's two parts at the service");
      // Forced, the receipt was extracted again; the statement was not finished: its one-page part was (1 credit), its job of 150 pages left open.
      expect(statuses(interrupted)['receipt.jpg']).toEqual({ status: 'complete', reused: false });
      expect(interrupted['statement.pdf']?.status).not.toBe('complete');
      expect(emu.counters.creditsCharged - chargedBefore).toBe(2);

      // The same forced run again resumes it: the receipt is kept, the statement finished, every page of both paid for once.
      expect(statuses(await run(ws, { force: true }))).toEqual({
        'statement.pdf': { status: 'complete', reused: false },
        'receipt.jpg': { status: 'complete', reused: true },
      });
      expect(emu.counters.creditsCharged - chargedBefore).toBe(152);
      expectStatementInParts(ws.out);

      // That forced run finished with nothing left undone: it has ended, and the same forced run extracts every file anew.
      const chargedResumed = emu.counters.creditsCharged;
      expect(statuses(await run(ws, { force: true }))).toEqual(FRESH);
      expect(emu.counters.creditsCharged - chargedResumed).toBe(152);
    },
  );

  it.each(Object.keys(DOORS))(
    '%s: a forced run interrupted on its own is resumed while riding along on a watch, paying for nothing twice; then it has ended',
    { timeout: 120_000 },
    async (door) => {
      const ws = fourPagesAndReceipt();
      const run = DOORS[door] as (ws: Workspace, how?: DoorRun) => Promise<Finished>;
      expect(statuses(await run(ws))).toEqual(FRESH_SMALL);

      // The PDF's upload is held until the door has reported the receipt and been interrupted: its job is left open.
      const chargedBefore = emu.counters.creditsCharged;
      const interrupted = await forcedRunInterruptedAfterReceipt(ws, run, 1, "the PDF's upload at the service");
      expect(statuses(interrupted)['receipt.jpg']).toEqual({ status: 'complete', reused: false });
      expect(interrupted['four.pdf']?.status).not.toBe('complete');
      expect(emu.counters.creditsCharged - chargedBefore).toBe(1);

      // The same forced run again, beside a watch that now holds the state folder: it rides along, and resumes.
      const host = await hostingWatch(ws);
      expect(statuses(await run(ws, { force: true }))).toEqual({
        'four.pdf': { status: 'complete', reused: false },
        'receipt.jpg': { status: 'complete', reused: true },
      });
      expect(emu.counters.creditsCharged - chargedBefore).toBe(5);

      // Ended with nothing left undone, riding along too: the same forced run extracts every file anew.
      expect(statuses(await run(ws, { force: true }))).toEqual(FRESH_SMALL);
      expect(emu.counters.creditsCharged - chargedBefore).toBe(10);

      host.child.kill('SIGTERM');
      const hostDone = await host.done;
      expect(hostDone.code, hostDone.stderr).toBe(130);
      // Both forced runs rode along: the host took nothing of its own.
      expect(parseNdjson(hostDone.stdout).filter((line) => line.file !== undefined)).toEqual([]);
    },
  );
});

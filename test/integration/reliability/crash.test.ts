/**
 * Crash suite: the built CLI as a child process, killed with SIGKILL at a
 * seeded moment of a batch, then finished by running the same command again
 * (or by `docextract collect <parent_job_id>` for each job in the journal).
 * Only the killed run needs a process of its own; the commands after it run
 * in this process (a process start each was most of their cost), on the
 * same state folder, as the next command a user types would.
 *
 * What a rerun must give: the same results as a clean run (every file
 * complete, every page in order), no job finalized before its result is on
 * disk, and nothing paid for twice. Precisely:
 *
 * - A split document whose manifest reached the journal is never uploaded
 *   again, and its chunks are never charged twice (a chunk whose answer was
 *   lost in the kill is replayed for free).
 * - A split document may be uploaded a second time only if the kill fell
 *   between its upload intent and its journaled manifest: the server may have
 *   made a job whose chunk ids died with the process. That orphan's chunks
 *   are never processed, so credits stay one per page.
 * - A synchronous file (image, PDF of 3 pages or fewer) may be uploaded a
 *   second time only if its result was not on disk at the kill: the server
 *   may have extracted and charged it, but the result existed only in the
 *   lost answer (the API has no idempotency key). Then it is charged again,
 *   and the expected credits say so.
 * - No file is uploaded more than twice (one kill, at most one repeat).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorEvent, EmulatorOptions, EmulatorRequestLog, RunningEmulator } from '../../../src/emulator/index.js';
import { mulberry32 } from '../../../src/emulator/prng.js';
import { startChildCli } from '../../helpers/child-run.js';
import {
  FAST_FLAGS,
  batchFiles,
  emulatorEnv,
  expectNoStackTrace,
  filesBelow,
  outputsBySha,
  readJournal,
  startTestEmulator,
  totalPages,
  watchFinalizes,
  type BatchFile,
} from '../../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { runCli, type CliRun } from '../../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const FILES: BatchFile[] = [
  { target: 'img/receipt.jpg', source: 'images/receipt.jpg', pages: 1 },
  { target: 'img/id-card.png', source: 'images/id-card.png', pages: 1 },
  { target: 'short/two.pdf', source: 'pdf/pages-2.pdf', pages: 2 },
  { target: 'short/three.pdf', source: 'pdf/pages-3.pdf', pages: 3 },
  { target: 'long/four.pdf', source: 'pdf/pages-4.pdf', pages: 4 },
  { target: 'long/seven.pdf', source: 'pdf/linearized-7.pdf', pages: 7 },
  { target: 'long/twelve.pdf', source: 'pdf/pages-12.pdf', pages: 12 },
];
const SPLIT = FILES.filter((file) => file.pages > 3);
// Three seeded kill points a scenario in `npm test` (each seed a child killed and a rerun: about 4 CPU-seconds);
// DOCEXTRACT_CRASH_SEEDS=404,505,… adds more, as `npm run soak` runs do.
const SEEDS = [101, 202, 303, ...(process.env.DOCEXTRACT_CRASH_SEEDS ?? '').split(',').filter(Boolean).map(Number)];
/** Scaled-down windows, the same on both sides: about 1 to 2 s for the batch. */
const RATE = '20/1s';
const RATE_WINDOWS = [{ limit: 20, windowMs: 1000 }];

function extractArgs(inputs: string, out: string): string[] {
  return ['extract', inputs, '--out', out, '--json', '--rate-limit', RATE, ...FAST_FLAGS];
}

/** The data of a clean run, by file: what every recovered run must reproduce. */
const cleanData = new Map<string, unknown>();

beforeAll(async () => {
  const emu = await startTestEmulator();
  try {
    const ws = makeWorkspace(batchFiles(FILES));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: emulatorEnv(emu) });
    expect(run.code, run.stderr).toBe(0);
    for (const file of FILES) cleanData.set(file.target, resultOf(join(ws.out, `${file.target}.json`)).data);
  } finally {
    await emu.close();
  }
});

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  rateLimitedUploads.clear();
  await emulator?.close();
  emulator = undefined;
});

interface ResultFile {
  status: string;
  source: { sha256: string };
  data: unknown;
}

function resultOf(path: string): ResultFile {
  return JSON.parse(readFileSync(path, 'utf8')) as ResultFile;
}

function completeOnDisk(path: string, sha256: string): boolean {
  try {
    const result = resultOf(path);
    return result.status === 'complete' && result.source.sha256 === sha256;
  } catch {
    return false;
  }
}

/**
 * An emulator whose every answer and every piece of server-side work (the
 * events fire mid-request, before the answer leaves) is a possible kill point.
 */
async function startCrashEmulator(
  seed: number,
  onPoint: (point: string) => void,
  hold: () => Promise<void> | undefined = () => undefined,
): Promise<RunningEmulator> {
  const random = mulberry32(seed);
  const options: EmulatorOptions = {
    rateLimits: RATE_WINDOWS,
    // From the kill point on, answers wait until the child is dead: the kill lands mid-run whatever the
    // machine's speed (a kill 0-30 ms after a late point once found the child already finished).
    holdAnswer: () => hold(),
    // 50 to 150 ms per chunk, so that a kill can land while a chunk is in the works.
    latencyMs: { process: 50 + Math.floor(random() * 100), documents: 10 },
    onRequest: (entry) => {
      countRateLimitedUpload(entry);
      onPoint(`answer:${entry.endpoint ?? '?'}`);
    },
  };
  const emu = await startTestEmulator(options);
  emu.events.on('event', (event: EmulatorEvent) => onPoint(`work:${event.type}`));
  return emu;
}

/** Kills the child with SIGKILL `delayMs` after the `nth` matching kill point. */
class Killer {
  private seen = 0;
  private target?: { kill(signal: NodeJS.Signals): boolean };
  firedAt?: string;
  private released?: () => void;
  private heldUntilKilled?: Promise<void>;

  /** Once fired, answers wait for this until the child is dead (`release`). */
  hold(): Promise<void> | undefined {
    return this.heldUntilKilled;
  }

  release(): void {
    this.released?.();
    this.heldUntilKilled = undefined;
  }

  constructor(
    private readonly nth: number,
    private readonly delayMs: number,
    private readonly matches: (point: string) => boolean,
  ) {}

  arm(target: { kill(signal: NodeJS.Signals): boolean }): void {
    this.target = target;
  }

  point(point: string): void {
    if (!this.target || this.firedAt !== undefined || !this.matches(point)) return;
    this.seen += 1;
    if (this.seen !== this.nth) return;
    this.firedAt = point;
    this.heldUntilKilled = new Promise<void>((resolve) => (this.released = resolve));
    const target = this.target;
    setTimeout(() => target.kill('SIGKILL'), this.delayMs);
  }
}

interface AfterKill {
  pid: number;
  journal: Record<string, unknown>[];
  onDisk: Set<string>;
  lockLeft: boolean;
  /** What the run after the kill said (a job found gone, an upload again). */
  rerunStderr?: string;
}

/** Run the batch as a child and kill it at the seeded point; what the kill left behind. */
async function runAndKill(
  emu: RunningEmulator,
  killer: Killer,
  args: string[],
  env: NodeJS.ProcessEnv,
  ws: { inputs: string; out: string },
): Promise<AfterKill> {
  const running = startChildCli(args, env);
  killer.arm(running.child);
  const killed = await running.done;
  killer.release(); // the rerun's answers are not held
  expect(killed.signal, `the kill at ${killer.firedAt ?? 'no point'} must land mid-run; stderr: ${killed.stderr}`).toBe('SIGKILL');
  const stateDir = env.DOCEXTRACT_STATE_DIR as string;
  const onDisk = new Set(
    FILES.filter((file) => completeOnDisk(join(ws.out, `${file.target}.json`), sha256Of(join(ws.inputs, file.target)))).map((file) => file.target),
  );
  return { pid: running.child.pid as number, journal: readJournal(stateDir), onDisk, lockLeft: existsSync(join(stateDir, 'lock')) };
}

function acceptedUploads(emu: RunningEmulator): Map<string, number> {
  const accepted = new Map<string, number>();
  emu.events.on('event', (event: EmulatorEvent) => {
    if (event.type === 'upload' && event.sha256) accepted.set(event.sha256, (accepted.get(event.sha256) ?? 0) + 1);
  });
  return accepted;
}

/** Uploads answered 429, by sha256: received, but never a job (see "Not asserted" below). */
const rateLimitedUploads = new Map<string, number>();

function countRateLimitedUpload(entry: EmulatorRequestLog): void {
  if (entry.endpoint === 'documents' && entry.status === 429 && entry.sha256)
    rateLimitedUploads.set(entry.sha256, (rateLimitedUploads.get(entry.sha256) ?? 0) + 1);
}

/** The batch's workspace on a crash emulator armed with `killer`, and what watches it. */
async function crashBatch(seed: number, killer: Killer) {
  const emu = (emulator = await startCrashEmulator(
    seed,
    (point) => killer.point(point),
    () => killer.hold(),
  ));
  const ws = makeWorkspace(batchFiles(FILES));
  return {
    emu,
    ws,
    env: emulatorEnv(emu),
    finalizes: watchFinalizes(emu, outputsBySha(FILES, ws.inputs, ws.out)),
    accepted: acceptedUploads(emu),
    args: extractArgs(ws.inputs, ws.out),
  };
}

/** Everything a recovered batch must satisfy; see the file comment. */
function expectRecovered(
  emu: RunningEmulator,
  ws: { inputs: string; out: string },
  afterKill: AfterKill,
  accepted: Map<string, number>,
  finalizes: { finalized: number; beforeResult: string[] },
): void {
  let expectedCredits = 0;
  for (const file of FILES) {
    const output = join(ws.out, `${file.target}.json`);
    const sha = sha256Of(join(ws.inputs, file.target));
    expectCompleteResult(output, join(ws.inputs, file.target), file.pages);
    expect(resultOf(output).data, `${file.target}: same data as a clean run`).toEqual(cleanData.get(file.target));

    const uploads = accepted.get(sha) ?? 0;
    expect(uploads, `${file.target} uploads`).toBeGreaterThanOrEqual(1);
    expect(uploads, `${file.target} uploads`).toBeLessThanOrEqual(2);
    const refused = rateLimitedUploads.get(sha) ?? 0;
    expect(emu.counters.uploadsBySha256[sha], `${file.target}: every upload received was accepted (or answered 429: ${refused})`).toBe(uploads + refused);
    const manifest = afterKill.journal.some((record) => record.type === 'manifest' && record.sha256 === sha);
    if (file.pages > 3) {
      if (manifest) expect(uploads, `${file.target}: journaled job resumed without a new upload; rerun said: ${afterKill.rerunStderr ?? ''}`).toBe(1);
      if (uploads === 2) {
        // Only a kill between the intent and the manifest justifies it.
        expect(manifest, `${file.target}: re-uploaded although its manifest was journaled`).toBe(false);
        expect(afterKill.journal.some((record) => record.type === 'upload-intent' && record.sha256 === sha)).toBe(true);
      }
      expectedCredits += file.pages;
    } else {
      if (afterKill.onDisk.has(file.target)) expect(uploads, `${file.target}: result was on disk, yet uploaded again`).toBe(1);
      expectedCredits += file.pages * uploads;
    }
  }
  expect(emu.counters.creditsCharged, 'credits: one per page, plus only the sync re-uploads the kill forced').toBe(expectedCredits);
  expect(finalizes.beforeResult, 'finalized before the result was on disk').toEqual([]);
  expect(emu.counters.finalizedJobs).toBe(SPLIT.length);
  expect(finalizes.finalized).toBe(SPLIT.length);
  // Not asserted: zero 429s. The persisted send log does keep a restarted run under the windows,
  // but with 1 s windows the gate's guard is 20 ms, and on a loaded machine a request can reach
  // the server more than 20 ms after its slot was recorded; the 429 is then absorbed (pause until
  // Reset) and the run still completes, which is what is asserted.
}

describe('crash suite: kill -9 mid-batch, then the same command again', () => {
  it.each(SEEDS)('seed %i: the rerun finishes the batch as a clean run would, and pays for nothing twice', async (seed) => {
    const random = mulberry32(seed * 7919);
    // Some 44 kill points in a clean run (an answer and a piece of work per request): pick one of the first 36.
    const killer = new Killer(2 + Math.floor(random() * 35), Math.floor(random() * 30), () => true);
    const { emu, ws, env, finalizes, accepted, args } = await crashBatch(seed, killer);

    const afterKill = await runAndKill(emu, killer, args, env, ws);
    // kill -9 leaves the lock behind; it must not block the rerun.
    expect(afterKill.lockLeft).toBe(true);
    // And a kill in the middle of a result write leaves its temporary file: plant one, named as
    // the dead process would have named it, deep in the output folder.
    const leftover = join(ws.out, 'long', `.twelve.pdf.json.tmp-${afterKill.pid}-0123456789ab`);
    mkdirSync(join(ws.out, 'long'), { recursive: true });
    writeFileSync(leftover, '{"status":"comp');

    const rerun = await runCli(args, { env });
    afterKill.rerunStderr = rerun.stderr;
    expectNoStackTrace(rerun.stderr);
    expect(rerun.code, rerun.stderr).toBe(0);
    const lines = parseNdjson(rerun.stdout);
    expect(lines.map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expectRecovered(emu, ws, afterKill, accepted, finalizes);
    expect(existsSync(join(env.DOCEXTRACT_STATE_DIR as string, 'lock'))).toBe(false);
    expect(filesBelow(ws.out).filter((path) => /\.tmp-\d+-[0-9a-f]+$/.test(path))).toEqual([]);
    expect(readJournal(env.DOCEXTRACT_STATE_DIR as string).filter((record) => record.type === 'manifest')).toEqual([]);
  });
});

describe('crash suite: kill -9 as the server finalizes', () => {
  it('the job the server deleted is finished from the result on disk, even with its journal record lost: no new upload', async () => {
    // The kill lands while the server finalizes the first job: the journal still calls it open.
    const killer = new Killer(1, 0, (point) => point === 'work:finalize');
    const { emu, ws, env, finalizes, accepted, args } = await crashBatch(606, killer);
    const afterKill = await runAndKill(emu, killer, args, env, ws);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    // And as if the crash had come between the result file's rename and its record.
    const journal = readJournal(stateDir).filter((record) => record.type !== 'result-written' && record.type !== 'finalized');
    writeFileSync(join(stateDir, 'journal.ndjson'), journal.map((record) => `${JSON.stringify(record)}\n`).join(''));

    const rerun = await runCli(args, { env });
    afterKill.rerunStderr = rerun.stderr;
    expectNoStackTrace(rerun.stderr);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).not.toContain('uploading it again');
    expect(parseNdjson(rerun.stdout).map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expectRecovered(emu, ws, afterKill, accepted, finalizes);
    for (const file of SPLIT) expect(accepted.get(sha256Of(join(ws.inputs, file.target))), file.target).toBe(1);
  });
});

describe('crash suite: kill -9 mid-batch, then collect <parent_job_id> for each journaled job', () => {
  it.each(SEEDS)('seed %i: collect finishes every journaled job without a new upload; extract then finishes the rest for free', async (seed) => {
    const random = mulberry32(seed * 104_729);
    // Kill after one of the first six of the nine chunks: by then at least one manifest is journaled.
    const killer = new Killer(1 + Math.floor(random() * 6), Math.floor(random() * 60), (point) => point === 'work:chunk_processed');
    const { emu, ws, env, finalizes, accepted, args } = await crashBatch(seed, killer);
    const finalizedJobs = new Set<string>();
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'finalize' && event.jobId) finalizedJobs.add(event.jobId);
    });

    const afterKill = await runAndKill(emu, killer, args, env, ws);
    // The jobs a user would finish by hand: journaled, and not yet finalized. (Finalized ones are
    // done: their results are on disk, and the first collect compacts them out of the journal.)
    const finalizedInJournal = new Set(afterKill.journal.filter((record) => record.type === 'finalized').map((record) => record.parentJobId));
    const manifests = (afterKill.journal.filter((record) => record.type === 'manifest') as { parentJobId: string; sha256: string; path: string }[]).filter(
      (manifest) => !finalizedInJournal.has(manifest.parentJobId),
    );
    expect(manifests.length).toBeGreaterThanOrEqual(1);

    for (const manifest of manifests) {
      const collected: CliRun = await runCli(['collect', manifest.parentJobId, '--out', ws.out, '--json', '--rate-limit', RATE, ...FAST_FLAGS], { env });
      expectNoStackTrace(collected.stderr);
      expect(collected.code, collected.stderr).toBe(0);
      expect(parseNdjson(collected.stdout), collected.stderr).toEqual([expect.objectContaining({ status: 'complete', job_id: manifest.parentJobId })]);
      const file = FILES.find((f) => join(ws.inputs, f.target) === manifest.path);
      if (!file) throw new Error(`journaled path ${manifest.path} is not a batch file`);
      expectCompleteResult(join(ws.out, `${file.target}.json`), manifest.path, file.pages);
      expect(finalizedJobs.has(manifest.parentJobId), `job ${manifest.parentJobId} finalized`).toBe(true);
      expect(accepted.get(manifest.sha256)).toBe(1);
    }
    // Credits so far: the collected jobs' pages, once each, and whatever else the killed run finished.
    const collectedPages = manifests.reduce((sum, m) => sum + (FILES.find((f) => join(ws.inputs, f.target) === m.path)?.pages ?? 0), 0);
    expect(emu.counters.creditsCharged).toBeGreaterThanOrEqual(collectedPages);

    const documentsBefore = emu.counters.requestsByEndpoint.documents;
    const rerun = await runCli(args, { env });
    expectNoStackTrace(rerun.stderr);
    expect(rerun.code, rerun.stderr).toBe(0);
    // The collected files cost the final extract nothing: it uploads only what has no result yet.
    const collectedShas = new Set(manifests.map((m) => m.sha256));
    const stillMissing = FILES.filter((file) => !collectedShas.has(sha256Of(join(ws.inputs, file.target))) && !afterKill.onDisk.has(file.target));
    expect(emu.counters.requestsByEndpoint.documents - documentsBefore).toBeLessThanOrEqual(stillMissing.length);
    expect(parseNdjson(rerun.stdout).map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expectRecovered(emu, ws, afterKill, accepted, finalizes);
    // Every job is finished and compacted out of the journal: nothing is left to resume.
    expect(readJournal(env.DOCEXTRACT_STATE_DIR as string).filter((record) => record.type === 'manifest')).toEqual([]);
  });
});

describe('crash suite: the state lock', () => {
  it('a second run on the same state folder rides along with the first (one client): it exits 0 with its file, and the first finishes', async () => {
    // Every answer but the free checks waits until the host lists the second run as riding along: the
    // first run is at work (hosting) when the second joins, whatever either one's speed.
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ rateLimits: RATE_WINDOWS, holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace(batchFiles(FILES));
    const other = makeWorkspace({ 'other.png': 'images/logo-with-alpha.png' });
    const env = emulatorEnv(emu);

    const hosting = firstUpload(emu);
    // Both runs are processes: the test is the lock a live process holds, and the host's record of the other's pid.
    const first = startChildCli(extractArgs(ws.inputs, ws.out), env);
    await hosting;
    const riding = startChildCli(extractArgs(other.inputs, other.out), env);
    await waitForClient(env.DOCEXTRACT_STATE_DIR as string, 'the second run to join the first', riding.child.pid);
    expect(first.child.exitCode).toBeNull();
    held.release();
    const second = await riding.done;
    expectNoStackTrace(second.stderr);
    expect(second.code, second.stderr).toBe(0);
    expect(parseNdjson(second.stdout).map((line) => line.status)).toEqual(['complete']);
    expect(emu.counters.uploadsBySha256[sha256Of(join(other.inputs, 'other.png'))]).toBe(1);

    const firstDone = await first.done;
    expect(firstDone.code, firstDone.stderr).toBe(0);
    expect(parseNdjson(firstDone.stdout).map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES) + 1);
    // Once the first run is over, the folder is free again.
    const third = await runCli(extractArgs(other.inputs, other.out), { env });
    expect(third.code, third.stderr).toBe(0);
  });
});

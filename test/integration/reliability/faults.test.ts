/**
 * Fault suite: the CLI (in-process) against the emulator with seeded faults
 * on every endpoint it calls. Whatever the faults, a batch must end with every
 * page of every file in its result, in order; one credit per page; each file
 * accepted by the server once; and no job finalized before its result is on disk.
 *
 * What "uploaded once" means here. The emulator's `uploadsBySha256` counts
 * every documents request whose file part arrived, including the ones it then
 * rejects (429, 503, 500) or drops (reset_before, HTML 502) before doing any
 * work, and retrying those is the client's job. So the suite checks that
 * each file was *accepted* once (the emulator's `upload` event, emitted when
 * the server starts work on a file: a sync extraction or a split), and that
 * every extra copy received is paid for by an injected documents fault.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorEndpoint, EmulatorEvent, EmulatorOptions, FaultConfig, FaultKind, LyingFaultKind, RunningEmulator } from '../../../src/emulator/index.js';
import {
  FAST_FLAGS,
  batchFiles,
  emulatorEnv,
  expectNoStackTrace,
  outputsBySha,
  readJournal,
  startTestEmulator,
  totalPages,
  watchFinalizes,
  type BatchFile,
} from '../../helpers/emulator-run.js';
import { runCliOnFakeClock } from '../../helpers/fake-clock-cli.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { runCli } from '../../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

/** Images, short PDFs (sync) and PDFs of 4 to 30 pages (split). 66 pages. */
const MIXED: BatchFile[] = [
  { target: 'img/receipt.jpg', source: 'images/receipt.jpg', pages: 1 },
  { target: 'img/id-card.png', source: 'images/id-card.png', pages: 1 },
  { target: 'short/one.pdf', source: 'pdf/pages-1.pdf', pages: 1 },
  { target: 'short/two.pdf', source: 'pdf/pages-2.pdf', pages: 2 },
  { target: 'short/three.pdf', source: 'pdf/pages-3.pdf', pages: 3 },
  { target: 'long/four.pdf', source: 'pdf/pages-4.pdf', pages: 4 },
  { target: 'long/classic-five.pdf', source: 'pdf/classic-xref-5.pdf', pages: 5 },
  { target: 'long/linearized-seven.pdf', source: 'pdf/linearized-7.pdf', pages: 7 },
  { target: 'long/twelve.pdf', source: 'pdf/pages-12.pdf', pages: 12 },
  { target: 'long/thirty.pdf', source: 'pdf/pages-30.pdf', pages: 30 },
];

/** A smaller batch for the one-kind-at-a-time runs. */
const SMALL: BatchFile[] = [
  { target: 'receipt.jpg', source: 'images/receipt.jpg', pages: 1 },
  { target: 'two.pdf', source: 'pdf/pages-2.pdf', pages: 2 },
  { target: 'seven.pdf', source: 'pdf/pages-7.pdf', pages: 7 },
  { target: 'twelve.pdf', source: 'pdf/pages-12.pdf', pages: 12 },
];

/**
 * Every transient fault, and the endpoints it is applied on. Not on documents:
 * extraction_failed (a synchronous 422 is final and charged, by spec),
 * persist_failed (the sync path has extracted before it fails), and the
 * answer-losing reset_after and truncated_json (see the separate test below).
 * The lying-server kinds (LyingFaultKind) are not yet part of this suite.
 */
const KIND_ENDPOINTS: Record<Exclude<FaultKind, 'chunk_source_lost' | LyingFaultKind>, EmulatorEndpoint[]> = {
  rate_limit: ['documents', 'process', 'result'],
  server_busy: ['documents', 'process', 'result'],
  server_error: ['documents', 'process', 'result'],
  persist_failed: ['process', 'result'],
  extraction_failed: ['process'],
  chunk_in_progress: ['process'],
  reset_before: ['documents', 'process', 'result'],
  reset_after: ['process', 'result'],
  html_502: ['documents', 'process', 'result'],
  truncated_json: ['process', 'result'],
  slow: ['documents', 'process', 'result'],
};

/** The seeded mix: every kind at once, 19 % failures on documents, 34 % on process, 23 % on result, plus 10 % slow. */
const MIXED_FAULTS: FaultConfig = {
  documents: { rate_limit: 0.03, server_busy: 0.04, server_error: 0.04, reset_before: 0.04, html_502: 0.04, slow: 0.1 },
  process: {
    rate_limit: 0.02,
    server_busy: 0.03,
    server_error: 0.03,
    persist_failed: 0.04,
    extraction_failed: 0.04,
    chunk_in_progress: 0.04,
    reset_before: 0.03,
    reset_after: 0.04,
    html_502: 0.03,
    truncated_json: 0.04,
    slow: 0.1,
  },
  result: {
    rate_limit: 0.02,
    server_busy: 0.03,
    server_error: 0.03,
    persist_failed: 0.03,
    reset_before: 0.03,
    reset_after: 0.03,
    html_502: 0.03,
    truncated_json: 0.03,
    slow: 0.1,
  },
};

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/**
 * The batches' emulator, on a fake clock the CLI shares (runAndCheck): the waits the faults ask for (a
 * 429's Retry-After of a second or more, the 503 pause, a 409's wait) then cost no real time. The clock
 * moves only when the run waits for nothing but it, so the order of requests and answers is the real one.
 */
async function startFaultyEmulator(options: EmulatorOptions): Promise<RunningEmulator & { clock: FakeClock }> {
  const clock = new FakeClock();
  const emu = (emulator = await startTestEmulator({ ...options, now: () => clock.now() }));
  return Object.assign(emu, { clock });
}

/** Accepted uploads (the server started work on the file) by sha256. */
function watchAcceptedUploads(emu: RunningEmulator): Map<string, number> {
  const accepted = new Map<string, number>();
  emu.events.on('event', (event: EmulatorEvent) => {
    if (event.type === 'upload' && event.sha256) accepted.set(event.sha256, (accepted.get(event.sha256) ?? 0) + 1);
  });
  return accepted;
}

function documentsFailures(emu: RunningEmulator): number {
  return Object.entries(emu.counters.faultsInjected)
    .filter(([name]) => name.startsWith('documents.') && name !== 'documents.slow')
    .reduce((sum, [, count]) => sum + count, 0);
}

/** Run the batch under the emulator's faults and check every invariant of the suite. */
async function runAndCheck(emu: RunningEmulator & { clock: FakeClock }, files: BatchFile[], extraArgs: string[] = []): Promise<void> {
  const ws = makeWorkspace(batchFiles(files));
  const finalizes = watchFinalizes(emu, outputsBySha(files, ws.inputs, ws.out));
  const accepted = watchAcceptedUploads(emu);
  const env = emulatorEnv(emu);

  const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...FAST_FLAGS, ...extraArgs], env, emu.clock);

  expectNoStackTrace(run.stderr);
  expect(run.code, run.stderr).toBe(0);
  const lines = parseNdjson(run.stdout);
  expect(lines).toHaveLength(files.length);
  for (const file of files) {
    const line = lines.find((l) => String(l.file).endsWith(file.target));
    expect(line, file.target).toMatchObject({ status: 'complete', pages: file.pages, output: join(ws.out, `${file.target}.json`) });
    expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
  }
  // One credit per page: no chunk charged twice, no sync extraction repeated.
  expect(emu.counters.creditsCharged).toBe(totalPages(files));
  // Each file accepted once; every extra copy the server received was refused by a documents fault.
  for (const file of files) expect(accepted.get(sha256Of(join(ws.inputs, file.target))), `accepted uploads of ${file.target}`).toBe(1);
  const received = Object.values(emu.counters.uploadsBySha256).reduce((a, b) => a + b, 0);
  expect(received).toBe(files.length + documentsFailures(emu));
  // Every split job finalized, each only once its complete result was on disk.
  const splits = files.filter((file) => file.pages > 3).length;
  expect(finalizes.beforeResult).toEqual([]);
  expect(finalizes.finalized).toBe(splits);
  expect(emu.counters.finalizedJobs).toBe(splits);
  // The journal keeps nothing about finished jobs.
  const journal = readJournal(env.DOCEXTRACT_STATE_DIR as string);
  expect(journal.filter((record) => record.type === 'manifest')).toEqual([]);
}

describe('fault suite: every transient fault at once, seeded', () => {
  it.each([11, 2024, 90210])('seed %i: the mixed batch completes, one credit per page, each file accepted once, finalized after the write', async (seed) => {
    const emu = await startFaultyEmulator({ faults: MIXED_FAULTS, seed });
    await runAndCheck(emu, MIXED);
    // The faults really happened (about 20 % of some 60 requests).
    const injected = Object.entries(emu.counters.faultsInjected).filter(([name]) => !name.endsWith('.slow'));
    expect(injected.reduce((sum, [, count]) => sum + count, 0)).toBeGreaterThanOrEqual(5);
  });
});

describe('fault suite: one kind at a time, forced on the first request of each endpoint', () => {
  it.each(Object.entries(KIND_ENDPOINTS) as [FaultKind, EmulatorEndpoint[]][])('%s on %j', async (kind, endpoints) => {
    // The first request of each endpoint draws the fault for sure; once it has
    // taken effect, the endpoint drops to a seeded 25 % (a 429 waits at least
    // 1 s, so rate_limit drops to 0). `slow` stays on for every request.
    const after = kind === 'rate_limit' ? 0 : kind === 'slow' ? 1 : 0.25;
    const faults: FaultConfig = Object.fromEntries(endpoints.map((endpoint) => [endpoint, { [kind]: 1 }]));
    const lowered = new Set<EmulatorEndpoint>();
    const emu = await startFaultyEmulator({
      faults,
      seed: 7,
      onRequest: (entry) => {
        if (entry.fault !== kind || entry.endpoint === null || lowered.has(entry.endpoint)) return;
        lowered.add(entry.endpoint);
        faults[entry.endpoint] = { [kind]: after };
        emu.setFaults(faults);
      },
    });
    await runAndCheck(emu, SMALL);
    for (const endpoint of endpoints) {
      expect(emu.counters.faultsInjected[`${endpoint}.${kind}`] ?? 0, `${endpoint}.${kind} injected`).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('fault suite: documents answers lost after the server did the work', () => {
  // reset_after and truncated_json on documents lose the only copy of the
  // chunk ids (202) or of the sync result (200), and the API has no
  // idempotency key: a second upload is unavoidable. What IS guaranteed: the
  // file still completes, the lost upload is journaled as a job that may be
  // open (until its TTL), and the file is uploaded at most once more.
  it.each([
    ['reset_after', 'long.pdf', 'pdf/pages-7.pdf', 7],
    ['truncated_json', 'long.pdf', 'pdf/pages-7.pdf', 7],
    ['reset_after', 'scan.png', 'images/id-card.png', 1],
    ['truncated_json', 'short.pdf', 'pdf/pages-2.pdf', 2],
  ] as const)('%s on %s: completes with at most one extra upload, and the lost job is counted as possibly open', async (kind, target, source, pages) => {
    const faults: FaultConfig = { documents: { [kind]: 1 } };
    const emu = (emulator = await startTestEmulator({ faults, seed: 3 }));
    // Exactly one answer is lost: the fault goes away once it has taken effect.
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'upload') emu.setFaults({});
    });
    const accepted = watchAcceptedUploads(emu);
    const ws = makeWorkspace({ [target]: source, 'zz-other.jpg': 'images/receipt.jpg' });
    const env = emulatorEnv(emu);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '1', ...FAST_FLAGS], { env });

    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const sha = sha256Of(join(ws.inputs, target));
    expect(emu.counters.faultsInjected[`documents.${kind}`]).toBe(1);
    expectCompleteResult(join(ws.out, `${target}.json`), join(ws.inputs, target), pages);
    expectCompleteResult(join(ws.out, 'zz-other.jpg.json'), join(ws.inputs, 'zz-other.jpg'), 1);
    // The lost answer cost one more upload of that file, no more.
    expect(emu.counters.uploadsBySha256[sha]).toBe(2);
    expect(accepted.get(sha)).toBe(2);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'zz-other.jpg'))]).toBe(1);
    if (pages > 3) {
      // The chunks of the orphaned job were never processed: credits are still one per page.
      expect(emu.counters.creditsCharged).toBe(pages + 1);
      expect(emu.counters.finalizedJobs).toBe(1);
      // The orphan stays on the journal as an upload without an answer: a job
      // that may be open on the server, held against the open-job cap until its TTL.
      const journal = readJournal(env.DOCEXTRACT_STATE_DIR as string);
      const intents = journal.filter((record) => record.type === 'upload-intent' && record.sha256 === sha);
      expect(intents).toHaveLength(1);
      const answered = journal.filter((record) => record.type === 'upload-answered' || record.type === 'manifest');
      expect(answered.map((record) => record.intentId)).not.toContain(intents[0]?.intentId);
    } else {
      // A sync extraction whose answer was lost was charged, and the repeat is charged again.
      expect(emu.counters.creditsCharged).toBe(2 * pages + 1);
    }
    const line = parseNdjson(run.stdout).find((l) => String(l.file).endsWith(target));
    expect(line).toMatchObject({ status: 'complete', pages });
    expect(readFileSync(join(ws.out, `${target}.json`), 'utf8')).toContain(sha);
  });
});

describe('fault suite: lost upload answers do not stall the batch', () => {
  it('uploads of a split PDF reset again and again: the "possibly open" jobs they leave do not block it until they expire', async () => {
    // Each reset upload of a PDF that splits may have left a job on the server, so the client
    // counts it as possibly open for the TTL (2 h). With --open-jobs 2, two resets fill the cap
    // with such phantoms; the batch must still go on (the server is the judge of its open jobs).
    let resets = 0;
    const emu = (emulator = await startTestEmulator({
      faults: { documents: { reset_before: 1 } },
      seed: 1,
      onRequest: (entry) => {
        if (entry.fault === 'reset_before' && ++resets === 3) emu.setFaults({});
      },
    }));
    const ws = makeWorkspace({ 'seven.pdf': 'pdf/pages-7.pdf', 'twelve.pdf': 'pdf/pages-12.pdf' });
    const run = await runCli(
      ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--open-jobs', '2', '--concurrency', '1', ...FAST_FLAGS],
      {
        env: emulatorEnv(emu),
      },
    );
    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(resets).toBe(3);
    expectCompleteResult(join(ws.out, 'seven.pdf.json'), join(ws.inputs, 'seven.pdf'), 7);
    expectCompleteResult(join(ws.out, 'twelve.pdf.json'), join(ws.inputs, 'twelve.pdf'), 12);
    expect(emu.counters.creditsCharged).toBe(19);
    expect(emu.counters.finalizedJobs).toBe(2);
  });
});

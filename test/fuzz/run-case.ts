/**
 * Runs one fuzz case: the CLI in-process against an in-process emulator, both
 * on one fake clock, first under the case's faults, then once more with the
 * faults gone (what a user does after a bad run). Returns what the invariants
 * need, nothing judged here.
 */
import { join } from 'node:path';
import { startEmulator, type EmulatorRequestLog } from '../../src/emulator/index.js';
import { emulatorEnv, outputsBySha, readJournal, TEST_KEY, watchFinalizes, type BatchFile } from '../helpers/emulator-run.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { FakeClock } from '../helpers/fake-clock.js';
import type { CliRun } from '../helpers/run-cli.js';
import { makeWorkspace, sha256Of } from '../helpers/workspace.js';
import { FILE_POOL, type FuzzCase } from './fuzz-case.js';

/** Scaled-down windows, known to both sides; the fake clock makes their length free. */
export const WINDOWS = [
  { limit: 8, windowMs: 1_000 },
  { limit: 30, windowMs: 6_000 },
];
const RATE_SPEC = '8/1s,30/6s';
/**
 * Every wait the client picks by itself (backoff, the 503 pause, the 409 wait
 * doubled up to 64x) stays under the longest window, so that a longer wait can
 * only come from what the server said.
 */
const RETRY_FLAGS = ['--retry-base', '100ms', '--retry-max', '2s', '--busy-pause', '3s', '--conflict-delay', '50ms'];

/**
 * Caps far above any answer of these small files (a 12-page result is ~10 KB)
 * and a lie four times bigger, so an oversized answer passes the cap without
 * moving tens of megabytes per run. The real caps and 1.5 GB bodies are the
 * bench's (scripts/bench/reliability.js).
 */
const CAP_BYTES = 256 * 1024;
export const RESPONSE_CAPS = { health: CAP_BYTES, authorised: CAP_BYTES, models: CAP_BYTES, documents: CAP_BYTES, process: CAP_BYTES, result: CAP_BYTES };
const OVERSIZE_BYTES = 4 * CAP_BYTES;

/** Real milliseconds of `slow`; trickle_stop hangs up after ten times this. */
const SLOW_MS = 20;

/** A FakeClock that remembers every sleep the CLI asked for, and whether time ran it out. */
export class RecordingClock extends FakeClock {
  readonly sleeps: { ms: number; fired: boolean }[] = [];

  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const sleep = { ms, fired: false };
    this.sleeps.push(sleep);
    return super.sleep(ms, signal).then(() => {
      sleep.fired = true;
    });
  }
}

export interface CaseRun extends CliRun {
  /** The emulator's log of this run's requests. */
  log: EmulatorRequestLog[];
  requests: number;
  faultsInjected: Record<string, number>;
  rateLimited: number;
  /** Journal records when the run ended. */
  journal: Record<string, unknown>[];
}

export interface CaseObservation {
  files: (BatchFile & { sha256: string; output: string; input: string })[];
  /** Under the case's faults. */
  first: CaseRun;
  /** The same command again, the faults switched off. */
  second: CaseRun;
  /** Finalizes the emulator saw before the result file was complete on disk (both runs). */
  finalizedBeforeResult: string[];
  sleeps: RecordingClock['sleeps'];
}

export async function runCase(fuzzCase: FuzzCase): Promise<CaseObservation> {
  const clock = new RecordingClock(Date.UTC(2026, 10, 23, 9, 0, 0));
  let log: EmulatorRequestLog[] = [];
  const emulator = await startEmulator({
    keys: [TEST_KEY],
    rateLimits: WINDOWS,
    now: () => clock.now(),
    seed: fuzzCase.seed,
    faults: fuzzCase.faults,
    resetStyle: fuzzCase.resetStyle,
    clockSkewMs: fuzzCase.clockSkewMs,
    oversizeBytes: OVERSIZE_BYTES,
    slowMs: SLOW_MS,
    onRequest: (entry) => log.push(entry),
  });
  try {
    const batch: BatchFile[] = fuzzCase.files.map((name) => ({ target: name, ...FILE_POOL[name] }));
    const ws = makeWorkspace(Object.fromEntries(batch.map((file) => [file.target, file.source])));
    const files = batch.map((file) => ({
      ...file,
      input: join(ws.inputs, file.target),
      output: join(ws.out, `${file.target}.json`),
      sha256: sha256Of(join(ws.inputs, file.target)),
    }));
    const finalizes = watchFinalizes(emulator, outputsBySha(batch, ws.inputs, ws.out));
    const env = emulatorEnv(emulator);
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', RATE_SPEC, '--concurrency', String(fuzzCase.concurrency), ...RETRY_FLAGS];

    const runOnce = async (): Promise<CaseRun> => {
      log = [];
      const before = structuredClone(emulator.counters);
      const run = await runCliOnFakeClock(args, env, clock, { responseCaps: RESPONSE_CAPS });
      const after = emulator.counters;
      const requests = Object.values(after.requestsByEndpoint).reduce((a, b) => a + b, 0) - Object.values(before.requestsByEndpoint).reduce((a, b) => a + b, 0);
      const faultsInjected = Object.fromEntries(
        Object.entries(after.faultsInjected).map(([name, count]) => [name, count - (before.faultsInjected[name] ?? 0)]),
      );
      return {
        ...run,
        log,
        requests,
        faultsInjected,
        rateLimited: after.rateLimited - before.rateLimited,
        journal: readJournal(env.DOCEXTRACT_STATE_DIR as string),
      };
    };
    const first = await runOnce();
    emulator.setFaults({});
    const second = await runOnce();
    return { files, first, second, finalizedBeforeResult: finalizes.beforeResult, sleeps: clock.sleeps };
  } finally {
    await emulator.close();
  }
}

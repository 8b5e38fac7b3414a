import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { CORPUS, makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('requests in flight', () => {
  it('a fresh window grants its burst at once: 24 uploads under 30/10s are all in flight together', async () => {
    // Every upload's answer is held until 24 are held at once: "in flight together" is then a fact, not
    // a race between the sends and a real 1.5 s latency. Fewer in flight would never reach 24, and fail.
    let held = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let allHeld: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (allHeld = resolve));
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [{ limit: 30, windowMs: 10_000 }],
      holdAnswer: (endpoint) => {
        if (endpoint !== 'documents') return undefined;
        if (++held === 24) allHeld();
        return released;
      },
    });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const png = readFileSync(join(CORPUS, 'images/id-card.png'));
    for (let i = 0; i < 24; i += 1) writeFileSync(join(ws.inputs, `scan-${i}.png`), Buffer.concat([png, Buffer.from(`copy ${i}`)]));
    const running = runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '30/10s'], { env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) });
    // The real-time bound only decides how long a failing run is given: a passing one never waits on it.
    const giveUp = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100_000).unref());
    const reached = await Promise.race([all.then(() => true), running.then(() => false), giveUp]);
    expect(reached, `${held} uploads were in flight together, not 24`).toBe(true);
    release();
    const run = await running;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(24);
  });

  it('upload bodies in memory stay under 128 MB: of 16 files of 9.5 MB, 13 are in flight and no more', async () => {
    // Every upload's answer is held until the test releases it, one at a time: 13 are held, then each
    // release lets exactly one more body go (the 14th, 15th, 16th each wait for an answer). In flight is
    // counted at each arrival, as arrived minus released (a released answer may still be on its way, so
    // this never counts more than the client holds). No window of time: every wait is for an arrival.
    // Not yet shown to fail without the budget: with UPLOAD_BODY_BYTES (src/batch/dispatch.ts) raised to
    // 1 GiB it still passed (2026-11-26), so another limit also holds 13 in flight; to be found (issue 28).
    const answers: (() => void)[] = [];
    let released = 0;
    let mostInFlight = 0;
    const arrivalWaiters = new Map<number, () => void>();
    const arrival = (n: number): Promise<void> => new Promise((resolve) => (answers.length >= n ? resolve() : arrivalWaiters.set(n, resolve)));
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [],
      holdAnswer: (endpoint) => {
        if (endpoint !== 'documents') return undefined;
        const answered = new Promise<void>((resolve) => answers.push(resolve));
        mostInFlight = Math.max(mostInFlight, answers.length - released);
        arrivalWaiters.get(answers.length)?.();
        return answered;
      },
    });
    const releaseNext = (): void => answers[released++]?.();
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const png = readFileSync(join(CORPUS, 'images/id-card.png'));
    // Sparse files: 9.5 MB each as the CLI reads them, almost nothing on the disk (152 MB were once written here).
    for (let i = 0; i < 16; i += 1) {
      const path = join(ws.inputs, `big-${i}.png`);
      writeFileSync(path, Buffer.concat([png, Buffer.from(`copy ${i}`)]));
      truncateSync(path, 9.5 * 1024 * 1024);
    }
    const running = runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) });
    const ended = running.then(() => 'the run ended');
    // The real-time bound only decides how long a failing run is given: a passing one never waits on it.
    const giveUp = new Promise<string>((resolve) => setTimeout(() => resolve('gave up after 100 s'), 100_000).unref());
    for (let n = 13; n <= 16; n += 1) {
      if (n > 13) releaseNext();
      const reached = await Promise.race([arrival(n).then(() => 'arrived'), ended, giveUp]);
      expect(reached, `upload ${n} (${answers.length} arrived, ${released} released)`).toBe('arrived');
    }
    while (released < answers.length) releaseNext();
    const run = await running;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(16);
    expect(answers).toHaveLength(16);
    expect(mostInFlight, 'uploads in flight at once (13 x 9.5 MB is the most under 128 MB)').toBe(13);
  });
});

import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { waitFor, waitForQuiet } from '../helpers/wait-for.js';
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
    const running = runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '30/10s'], {
      env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
    });
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
    // Every upload's answer is held until the test releases it, one at a time. After each arrival the
    // test waits until the run is quiet: every upload the client sent has reached the emulator and no
    // file is being read, for several event-loop turns in a row (waitForQuiet). Only then is what
    // arrived counted, and only then is the next answer released. So the client has had every chance
    // to send a 14th while 13 are held: 13 arrive, then each release lets exactly one more body go.
    // Released as soon as the 13th arrived (as this test once did), the 14th was still being read
    // (about a second for 9.5 MB here), so 13 held even without the budget: the test's own pace was
    // the limit. Shown to fail without the budget: UPLOAD_BODY_BYTES (src/batch/dispatch.ts) raised to
    // 1 GiB, 16 arrive while 13 are held (2026-11-26).
    const answers: (() => void)[] = [];
    let released = 0;
    let mostInFlight = 0;
    let sent = 0;
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [],
      holdAnswer: (endpoint) => {
        if (endpoint !== 'documents') return undefined;
        const answered = new Promise<void>((resolve) => answers.push(resolve));
        mostInFlight = Math.max(mostInFlight, answers.length - released);
        return answered;
      },
    });
    // The client's uploads, counted as they leave (the emulator counts them as they arrive).
    const counting: typeof fetch = (input, init) => {
      if (init?.method === 'POST' && String(input instanceof Request ? input.url : input).endsWith('/documents')) sent += 1;
      return fetch(input, init);
    };
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
    let ended = false;
    const running = runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], {
      env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
      fetch: counting,
    }).finally(() => (ended = true));
    for (let n = 13; n <= 16; n += 1) {
      if (n > 13) releaseNext();
      await waitFor(() => answers.length >= n || ended, `upload ${n} to arrive (${answers.length} arrived, ${released} released)`);
      await waitForQuiet(() => sent === answers.length || ended, `the client to send nothing more while ${answers.length - released} answers are held`);
      expect(ended, 'the run ended while answers were held').toBe(false);
      expect(answers.length, `uploads arrived with ${released} answers released`).toBe(n);
    }
    while (released < answers.length) releaseNext();
    const run = await running;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(16);
    expect(answers).toHaveLength(16);
    expect(mostInFlight, 'uploads in flight at once (13 x 9.5 MB is the most under 128 MB)').toBe(13);
  });
});

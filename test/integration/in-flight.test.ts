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
    const giveUp = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20_000).unref());
    const reached = await Promise.race([all.then(() => true), running.then(() => false), giveUp]);
    expect(reached, `${held} uploads were in flight together, not 24`).toBe(true);
    release();
    const run = await running;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(24);
  });

  it('upload bodies in memory stay under 128 MB: of 16 files of 9.5 MB, 13 are in flight and no more', async () => {
    // Every upload's answer is held until 13 are held: reaching 13 is then a fact, not a race with a real
    // latency. After that, the client is given a real second to send a 14th body (without the budget, the
    // 14th follows the 13th within milliseconds); a slow machine can only make this miss a regression,
    // never fail a correct client.
    let held = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let thirteenHeld: () => void = () => undefined;
    const thirteen = new Promise<void>((resolve) => (thirteenHeld = resolve));
    emulator = await startEmulator({
      keys: [KEY],
      rateLimits: [],
      holdAnswer: (endpoint) => {
        if (endpoint !== 'documents') return undefined;
        if (++held === 13) thirteenHeld();
        return released;
      },
    });
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
    const giveUp = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20_000).unref());
    const reached = await Promise.race([thirteen.then(() => true), running.then(() => false), giveUp]);
    expect(reached, `${held} uploads were in flight together, not 13`).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(held, 'uploads in flight at once (13 x 9.5 MB is the most under 128 MB)').toBe(13);
    release();
    const run = await running;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(16);
  });
});

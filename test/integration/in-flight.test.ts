import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorRequestLog, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { CORPUS, makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The most requests the server was working on at one instant. */
function mostAtOnce(log: readonly EmulatorRequestLog[]): number {
  const edges = log.flatMap((entry) => [
    { at: entry.at - entry.durationMs, step: 1 },
    { at: entry.at, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.step));
  return most;
}

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

  it('upload bodies in memory stay under 128 MB: of 16 files of 9.5 MB, at most 13 are in flight', async () => {
    const log: EmulatorRequestLog[] = [];
    emulator = await startEmulator({ keys: [KEY], rateLimits: [], latencyMs: { documents: 10_000 }, onRequest: (entry) => log.push(entry) });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const png = readFileSync(join(CORPUS, 'images/id-card.png'));
    // Sparse files: 9.5 MB each as the CLI reads them, almost nothing on the disk (152 MB were once written here).
    for (let i = 0; i < 16; i += 1) {
      const path = join(ws.inputs, `big-${i}.png`);
      writeFileSync(path, Buffer.concat([png, Buffer.from(`copy ${i}`)]));
      truncateSync(path, 9.5 * 1024 * 1024);
    }
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) });
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(16);
    const most = mostAtOnce(log.filter((entry) => entry.endpoint === 'documents'));
    expect(most).toBeLessThanOrEqual(13);
    expect(most).toBeGreaterThanOrEqual(8);
  }, 60_000);
});

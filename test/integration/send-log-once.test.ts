/**
 * Issue 52, item 1: the send log every command on a key reads counts each
 * request once, however the gate moved it. Two commands one after another,
 * each its own gate reading the log on disk, against the emulator's 40/min
 * window on one fake clock: the first sends 20, the second 15 at once.
 * Each answer comes LATENCY_MS after its request on that clock, so the gate
 * moves every send to when the server most likely counted it (restamp).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, TEST_KEY } from '../helpers/emulator-run.js';
import { FakeClockDriver } from '../helpers/fake-clock-cli.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const MIN = 60_000;
/** How long each answer takes to come back, on the fake clock. */
const LATENCY_MS = 40;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The instants (fake clock) at which requests that go through the gate left the client. */
const GATED = /\/(documents|process|result)\b/;

/** Run a command in this process on the fake clock, each answer LATENCY_MS after its request; note when gated requests left. */
async function runSlowly(args: string[], env: NodeJS.ProcessEnv, clock: FakeClock, sent: number[]): Promise<CliRun> {
  const driver = new FakeClockDriver(clock);
  const slowFetch: typeof fetch = async (...request) => {
    const url = request[0] instanceof Request ? request[0].url : String(request[0]);
    if (GATED.test(new URL(url).pathname)) sent.push(clock.now());
    const response = await driver.fetch(...request);
    const body = await response.arrayBuffer();
    await clock.sleep(LATENCY_MS);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  let finished = false;
  const run = runCli(args, { env, clock, fetch: slowFetch }).finally(() => {
    finished = true;
  });
  while (!finished) await driver.step();
  return run;
}

async function writePdfs(dir: string, prefix: string, count: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `${prefix}-${i}.pdf`), await labelledPdf(`${prefix} ${i}`, 1));
}

interface UsageWindows {
  windows: { window: string; limit: number; used: number }[];
}

describe('the send log counts a request once, however the gate moved it', () => {
  it('20 requests by one command, then 15 by the next at once: usage shows 20, then 35, in the 40/min window', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 29, 9, 0, 0));
    emulator = await startEmulator({ keys: [TEST_KEY], now: () => clock.now(), rateLimits: [{ limit: 40, windowMs: MIN }] });
    const env = emulatorEnv(emulator, { DOCEXTRACT_RATE_LIMIT: '40/min' });
    const ws = makeWorkspace({});
    await writePdfs(join(ws.inputs, 'first'), 'first', 20);
    await writePdfs(join(ws.inputs, 'second'), 'second', 15);
    const usageUsed = async (): Promise<number | undefined> => {
      const usage = await runSlowly(['usage', '--json'], env, clock, []);
      expect(usage.code, usage.stderr).toBe(0);
      return (JSON.parse(usage.stdout) as UsageWindows).windows.find((window) => window.window === '40/min')?.used;
    };

    const firstSent: number[] = [];
    const first = await runSlowly(['extract', join(ws.inputs, 'first'), '--out', ws.out, '--json'], env, clock, firstSent);
    expect(first.code, first.stderr).toBe(0);
    expect(firstSent).toHaveLength(20);
    expect(await usageUsed()).toBe(20);

    const secondStarted = clock.now();
    const secondSent: number[] = [];
    const second = await runSlowly(['extract', join(ws.inputs, 'second'), '--out', ws.out, '--json'], env, clock, secondSent);
    expect(second.code, second.stderr).toBe(0);
    expect(parseNdjson(second.stdout).map((line) => line.status)).toEqual(Array.from({ length: 15 }, () => 'complete'));
    expect(secondSent).toHaveLength(15);
    // The window had room for all 15: none waited for sends that were never made (the double count held them ~60 s).
    expect(Math.max(...secondSent) - secondStarted).toBeLessThan(15 * LATENCY_MS + 1_000);
    expect(second.stderr).not.toMatch(/allowed no less than [1-9]/);
    expect(emulator.counters.rateLimited).toBe(0);
    expect(await usageUsed()).toBe(35);
  });
});

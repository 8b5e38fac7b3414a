/**
 * The service as real deployments run it: a clock that is not ours, and
 * X-RateLimit-Reset in the units servers really send. The client and the
 * emulator share a fake clock, so each run's makespan is measured in the
 * emulator's time, not the machine's.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { minimumMakespanMs } from '../../src/batch/admission.js';
import { parseRateWindows } from '../../src/config/grammar/rate-limit.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { CORPUS, MIXED_BATCH, makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const WINDOWS = [
  { limit: 8, windowMs: 1000 },
  { limit: 30, windowMs: 6000 },
];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

interface Measured {
  code: number;
  stderr: string;
  makespanMs: number;
  emu: RunningEmulator;
}

async function runBatch(options: EmulatorOptions, extraArgs: string[] = []): Promise<Measured> {
  await emulator?.close();
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
  const emu = (emulator = await startEmulator({ keys: [KEY], rateLimits: WINDOWS, seed: 7, now: () => clock.now(), ...options }));
  const ws = makeWorkspace(MIXED_BATCH);
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
  const started = clock.now();
  const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '8/1s,30/6s', ...extraArgs], env, clock);
  expect(
    parseNdjson(run.stdout).map((line) => line.status),
    run.stderr,
  ).toEqual(Object.keys(MIXED_BATCH).map(() => 'complete'));
  return { code: run.code, stderr: run.stderr, makespanMs: clock.now() - started, emu };
}

describe('X-RateLimit-Reset in the units servers really send', () => {
  it.each(['epoch-ms', 'delta-seconds'] as const)(
    'with Reset as %s and 429s, the batch finishes near the spec-style run and never waits past its longest window',
    async (resetStyle) => {
      const faults = { documents: { rate_limit: 0.15 }, process: { rate_limit: 0.15 } };
      const spec = await runBatch({ faults });
      const other = await runBatch({ faults, resetStyle }, ['--debug']);
      expect(other.code).toBe(0);
      expect(other.emu.counters.faultsInjected['documents.rate_limit'] ?? 0).toBeGreaterThan(0);
      expect(spec.makespanMs / other.makespanMs).toBeGreaterThanOrEqual(0.8);
      // No announced wait longer than the 6 s window: "next request slot in 744h" was the bug.
      const announced = [...other.stderr.matchAll(/next request slot [0-9:]+ \(in (\d+)(h|m|s)/g)];
      expect(announced.length, 'waits announced').toBeGreaterThan(0);
      for (const match of announced) {
        expect(match[2]).toBe('s');
        expect(Number(match[1])).toBeLessThanOrEqual(7);
      }
      if (resetStyle === 'epoch-ms') expect(other.stderr).not.toContain('cannot be a reset of any rate window');
    },
  );

  it('a Reset that cannot be true (years ahead, in the past) is ignored, said once, and never waited on', async () => {
    const run = await runBatch({ faults: { documents: { ratelimit_garbage: 0.3 } } }, ['--debug']);
    expect(run.code).toBe(0);
    expect(run.emu.counters.rateLimited).toBe(0);
    const said = run.stderr.split('\n').filter((line) => line.includes('cannot be a reset of any rate window'));
    expect(said).toHaveLength(2); // once in --debug, once plainly
    expect(run.makespanMs).toBeLessThan(60_000);
  });
});

/** 80 different images under 8/1s,30/6s on the fake clock: how long it took, and the emulator. */
async function runScans(options: EmulatorOptions): Promise<{ code: number; stderr: string; makespanMs: number; emu: RunningEmulator }> {
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
  const emu = (emulator = await startEmulator({ keys: [KEY], rateLimits: WINDOWS, seed: 7, now: () => clock.now(), ...options }));
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  const png = readFileSync(join(CORPUS, 'images/id-card.png'));
  for (let i = 0; i < 80; i += 1) writeFileSync(join(ws.inputs, `scan-${i}.png`), Buffer.concat([png, Buffer.from(`copy ${i}`)]));
  const started = clock.now();
  const run = await runCliOnFakeClock(
    ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '8/1s,30/6s'],
    isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY }),
    clock,
  );
  expect(parseNdjson(run.stdout).filter((line) => line.status === 'complete')).toHaveLength(80);
  return { code: run.code, stderr: run.stderr, makespanMs: clock.now() - started, emu };
}

describe('a key shared with another client', () => {
  it('with another client spending 20% of every window, at most 4% of our requests draw a 429, at 0.85 of the capacity left to us or better', async () => {
    const run = await runScans({ foreignRate: { count: 1, perMs: 1_000 } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.emu.counters.foreignRequests).toBeGreaterThan(10);
    expect(run.emu.counters.rateLimited / run.emu.counters.requestsByEndpoint.documents).toBeLessThanOrEqual(0.04);
    // 1/s of 5/s leaves 6/1s,24/6s to us.
    expect(minimumMakespanMs(80, parseRateWindows('6/1s,24/6s')) / run.makespanMs).toBeGreaterThanOrEqual(0.85);
  });

  it('with no other client, it takes what the windows allow: no slower than the bound allows', async () => {
    const run = await runScans({});
    expect(run.code).toBe(0);
    expect(run.emu.counters.rateLimited).toBe(0);
    expect(minimumMakespanMs(80, parseRateWindows('8/1s,30/6s')) / run.makespanMs).toBeGreaterThanOrEqual(0.95);
  });
});

describe("the server's clock is not ours", () => {
  it.each([4000, -4000])(
    'with the server %i ms off, the batch draws no 429, no job expires, and it takes about as long as without skew',
    async (clockSkewMs) => {
      // A tight TTL, as in the bench: reading expires_at in the wrong clock shows as expired jobs or idle waits.
      const baseline = await runBatch({ ttlMs: 24_000 }, ['--job-ttl', '24s']);
      const skewed = await runBatch({ clockSkewMs, ttlMs: 24_000 }, ['--job-ttl', '24s', '--debug']);
      expect(skewed.code).toBe(0);
      expect(skewed.emu.counters.rateLimited).toBe(0);
      expect(skewed.emu.counters.expiredJobs).toBe(0);
      expect(skewed.makespanMs).toBeLessThanOrEqual(baseline.makespanMs * 1.05 + 50);
      expect(skewed.stderr).toMatch(/the service's clock is \d+\.\d s (ahead of|behind) ours/);
    },
  );
});

describe('job slots held by jobs outside this run', () => {
  const BATCH = {
    'a.png': 'images/id-card.png',
    'b.jpg': 'images/receipt.jpg',
    'one.pdf': 'pdf/pages-1.pdf',
    'long/four.pdf': 'pdf/pages-4.pdf',
    'long/twelve.pdf': 'pdf/pages-12.pdf',
  };

  async function runHeld(
    foreignJobs: EmulatorOptions['foreignJobs'],
    extraArgs: string[],
  ): Promise<{ code: number; stdout: string; stderr: string; emu: RunningEmulator; probeTimes: number[] }> {
    await emulator?.close();
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    const emu = (emulator = await startEmulator({ keys: [KEY], rateLimits: [], now: () => clock.now(), ...(foreignJobs ? { foreignJobs } : {}) }));
    const started = clock.now();
    const probeTimes: number[] = [];
    emu.events.on('event', (event: { type: string; at: number }) => {
      if (event.type === 'upload') probeTimes.push(event.at - started);
    });
    const ws = makeWorkspace(BATCH);
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
    const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...extraArgs], env, clock);
    return { ...run, emu, probeTimes };
  }

  it('all five held for hours: synchronous files finish, splits wait with backoff (at most 4 probes in 75 s), are skipped after --slot-wait, exit 4, said once', async () => {
    const run = await runHeld({ count: 5 }, ['--slot-wait', '5m']);
    expect(run.code).toBe(4);
    const byFile = new Map(parseNdjson(run.stdout).map((line) => [String(line.file).split('/').pop(), line]));
    for (const name of ['a.png', 'b.jpg', 'one.pdf']) expect(byFile.get(name)).toMatchObject({ status: 'complete' });
    for (const name of ['four.pdf', 'twelve.pdf']) expect(byFile.get(name)).toMatchObject({ status: 'skipped', error: { code: 'too_many_open_jobs' } });
    const splitUploads = run.emu.counters.requestsByEndpoint.documents - 3;
    expect(splitUploads).toBeGreaterThanOrEqual(2);
    expect(splitUploads).toBeLessThanOrEqual(5);
    // The figure: at most 4 probes in the first 75 s (the 3 synchronous uploads aside).
    expect(run.probeTimes.filter((at) => at <= 75_000).length - 3).toBeLessThanOrEqual(4);
    expect(run.emu.counters.rateLimited).toBe(splitUploads);
    expect(run.stderr.match(/job slots are held by jobs outside this run/g)).toHaveLength(1);
    expect(run.stderr).toContain('Run the same command again later');
  });

  it('once the foreign jobs expire, a probe gets a slot and every document completes', async () => {
    const run = await runHeld({ count: 5, ttlMs: 180_000 }, []);
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(Object.keys(BATCH).map(() => 'complete'));
    // Probes before the slots free up: about one a minute, growing, never one a second.
    const refused = run.emu.counters.rateLimited;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(4);
  });

  it('with three foreign jobs, the two slots left keep working', async () => {
    const run = await runHeld({ count: 3 }, ['--slot-wait', '0']);
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(Object.keys(BATCH).map(() => 'complete'));
  });
});

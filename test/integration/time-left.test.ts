/**
 * Time left, as the user sees it off a terminal: each finished file's line
 * carries the scheduler's bound for what is left, long waits name the window
 * that holds them and the time of the next slot, and the summary sets the
 * time taken against the bound. On a fake clock: 120 requests under the
 * default windows (10/min, 100/h) take over an hour of it in milliseconds.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { CORPUS, makeWorkspace } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('time left under the default windows', () => {
  it('counts down on every file line, names the hourly window when it holds the next slot, and sets the time taken against the bound', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    emulator = await startEmulator({ keys: [KEY], now: () => clock.now() });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const png = readFileSync(join(CORPUS, 'images/id-card.png'));
    for (let i = 0; i < 120; i += 1) writeFileSync(join(ws.inputs, `scan-${String(i).padStart(3, '0')}.png`), Buffer.concat([png, Buffer.from(`copy ${i}`)]));
    const run = await runCliOnFakeClock(
      ['extract', ws.inputs, '--out', ws.out],
      isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY, TZ: 'UTC' }),
      clock,
    );
    expect(run.code, run.stderr).toBe(0);

    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(120);
    // 120 requests: 100 in the first hour (10 a minute), the last 20 from 10:00 on. The first
    // file's line says at least an hour is left, and the count only goes down.
    const left = lines.slice(0, -1).map((line) => /^\[(\d+)\/120, (?:(\d+)h (\d+)m|(\d+)m (\d+)s|(\d+)s) left\] complete /.exec(line));
    expect(
      left.every((match) => match !== null),
      lines.find((line, i) => left[i] === null),
    ).toBe(true);
    const seconds = left.map((m) => (m?.[2] ? Number(m[2]) * 3600 + Number(m[3]) * 60 : m?.[4] ? Number(m[4]) * 60 + Number(m[5]) : Number(m?.[6])));
    expect(seconds[0]).toBeGreaterThanOrEqual(3600);
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]).toBeLessThanOrEqual(seconds[i - 1] ?? 0);
    expect(lines.at(-1)).toMatch(/^\[120\/120\] complete /);

    expect(run.stderr).toMatch(/waiting: per-minute window \(10\/min\) full; next request slot 09:0\d \(in 1m 00s\), at least 1h 0\dm left/);
    expect(run.stderr).toMatch(/waiting: hourly window \(100\/h\) full; next request slot 1\d:\d\d \(in \d+m \d+s\), at least \d+m \d+s left/);
    const summary = /· (\d+)h (\d+)m \(the rate limits allowed no less than (\d+)h (\d+)m\)/.exec(run.stderr);
    expect(summary).not.toBeNull();
  });
});

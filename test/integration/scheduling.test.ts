import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { minimumMakespanMs } from '../../src/batch/admission.js';
import { parseRateWindows } from '../../src/config/grammar/rate-limit.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { isolatedEnv } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const HOUR = 3_600_000;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function writePdf(path: string, pages: number, label: string): Promise<void> {
  writeFileSync(path, await labelledPdf(label, pages));
}

describe('scheduling under the default limits (10/min, 100/h) on a fake clock', () => {
  it('finishes a mixed batch near the lower bound with no 429 and no expired job', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    emulator = await startEmulator({ keys: [KEY], now: () => clock.now() });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    let pages = 0;
    let requests = 0;
    for (let i = 0; i < 40; i += 1) {
      await writePdf(join(ws.inputs, `short-${i}.pdf`), 1 + (i % 3), `short ${i}`);
      pages += 1 + (i % 3);
      requests += 1;
    }
    for (const [i, count] of [30, 45, 60, 24].entries()) {
      await writePdf(join(ws.inputs, `long-${i}.pdf`), count, `long ${i}`);
      pages += count;
      requests += 1 + Math.ceil(count / 3) + 2;
    }
    const started = clock.now();
    const run = await runCliOnFakeClock(
      ['extract', ws.inputs, '--out', ws.out, '--json'],
      isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
      clock,
    );
    const makespan = clock.now() - started;

    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(Array.from({ length: 40 + 4 }, () => 'complete'));
    expect(emulator.counters.rateLimited).toBe(0);
    expect(emulator.counters.expiredJobs).toBe(0);
    expect(emulator.counters.creditsCharged).toBe(pages);
    const { documents, process, result } = emulator.counters.requestsByEndpoint;
    const sent = documents + process + result;
    expect(sent).toBe(requests);
    const lowerBound = minimumMakespanMs(requests, parseRateWindows('10/min,100/h,1000/d,10000/mo'));
    expect(makespan).toBeGreaterThan(HOUR); // more than 100 requests: the hourly window binds
    expect(lowerBound / makespan).toBeGreaterThan(0.9);
  });

  it('admits 150-page PDFs only as fast as they can finish before they expire', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    emulator = await startEmulator({ keys: [KEY], now: () => clock.now() });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    // Each costs 1 + 50 + 2 = 53 requests; at 100/h five of them cannot all finish within 2 h.
    for (let i = 0; i < 6; i += 1) await writePdf(join(ws.inputs, `big-${i}.pdf`), 150, `big ${i}`);
    const run = await runCliOnFakeClock(
      ['extract', ws.inputs, '--out', ws.out, '--json'],
      isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }),
      clock,
    );

    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(Array(6).fill('complete'));
    expect(emulator.counters.expiredJobs).toBe(0);
    expect(emulator.counters.rateLimited).toBe(0);
    expect(emulator.counters.creditsCharged).toBe(900);
    expect(emulator.counters.finalizedJobs).toBe(6);
  });
});

/**
 * The fake-clock runs (fuzz, real-world, scheduling, watch) hand the client
 * each answer body as the live stream it is (test/helpers/fake-clock-cli.ts),
 * so the client's capped reading and its handling of a body that stalls and
 * breaks mid-stream meet those cases as they do for real: here, a trickle_stop
 * (half the body, a few bytes, then nothing until the emulator hangs up) and an
 * oversized body, under the fake clock, handled as the real-clock case in
 * cost-controls.test.ts handles them: the batch goes on without the warm-up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, TEST_KEY } from '../helpers/emulator-run.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const CAP_BYTES = 64 * 1024;
const CAPS = { health: CAP_BYTES, authorised: CAP_BYTES, models: CAP_BYTES, documents: CAP_BYTES, process: CAP_BYTES, result: CAP_BYTES };

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function extractWithHealthLost(kind: 'trickle_stop' | 'oversized_body') {
  const clock = new FakeClock(Date.UTC(2026, 10, 28, 9, 0, 0));
  // slowMs is real time in the emulator: the trickle hangs up 200 ms after the headers.
  const emu = (emulator = await startEmulator({
    keys: [TEST_KEY],
    now: () => clock.now(),
    faults: { health: { [kind]: 1 } },
    slowMs: 20,
    oversizeBytes: 16 * CAP_BYTES,
  }));
  const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
  const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], emulatorEnv(emu), clock, {
    responseCaps: CAPS,
  });
  const health = run.bodies.filter((body) => new URL(body.url).pathname.endsWith('/health'));
  return { emu, run, health };
}

describe('answer bodies under the fake clock are live streams', () => {
  it('a health answer that stalls mid-body and is hung up on: the client was handed its first half, the body broke mid-stream, and the batch goes on', async () => {
    const { emu, run, health } = await extractWithHealthLost('trickle_stop');
    expect(run.code, run.stderr).toBe(0);
    expect(parseNdjson(run.stdout)).toMatchObject([{ status: 'complete' }]);
    expect(emu.counters.faultsInjected['health.trickle_stop']).toBe(1);
    expect(emu.counters.requestsByEndpoint.health).toBe(1);
    // Read whole before the client saw it, this answer was a failed fetch with no body at all.
    expect(health).toHaveLength(1);
    expect(health[0]?.end).toBe('failed');
    expect(health[0]?.bytes).toBeGreaterThan(0);
    expect(run.bodies.filter((body) => body.end === 'open')).toEqual([]);
  });

  it('an oversized health answer: the client cancels it without reading past its cap (its Content-Length already says too big), and the batch goes on', async () => {
    const { emu, run, health } = await extractWithHealthLost('oversized_body');
    expect(run.code, run.stderr).toBe(0);
    expect(emu.counters.requestsByEndpoint.health).toBe(1);
    expect(health).toHaveLength(1);
    expect(health[0]?.end).toBe('cancelled');
    // Read whole before the client saw it, all 16 caps' worth went through the wrapper.
    expect(health[0]?.bytes).toBeLessThanOrEqual(CAP_BYTES);
  });
});

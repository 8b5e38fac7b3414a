/**
 * kill -9 in the middle of a batch several planning slices long (extract
 * checks and plans 500 files at a time as the run goes): the same command then finishes every file, and
 * nothing is uploaded twice but the uploads whose answer the kill cut off.
 * Issue 30's 100,000-file row, at a size that fits the suite. The killed
 * command is a process; the same command after it runs in this one.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { PLAN_SLICE } from '../../src/engine/running-window.js';
// The bench's own maker of distinct 1x1 PNGs (plain JS, no build needed).
import { tinyPng } from '../../scripts/bench/files.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { parseNdjson } from '../helpers/workspace.js';

/** Three planning slices, the last one short: what the kill and the rerun cross is slices, not their number (2,000 files cost 40 % more CPU). */
const FILES = 2 * PLAN_SLICE + 200;
const PER_FOLDER = 200;
const CONCURRENCY = 8;
/** Uploads answered before the answers are held and the process killed: past the first slice, short of the last. */
const ANSWERED = PLAN_SLICE + 200;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('kill -9 in the middle of a batch of many slices', () => {
  it('the same command finishes every file; only the uploads whose answers the kill cut off are sent again', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-scale-'));
    const inputs = join(dir, 'in');
    for (let i = 0; i < FILES; i++) {
      const folder = join(inputs, `d${String(Math.floor(i / PER_FOLDER)).padStart(2, '0')}`);
      if (i % PER_FOLDER === 0) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `img-${String(i).padStart(4, '0')}.png`), tinyPng(`resume at scale ${i}`));
    }
    let uploads = 0;
    let held = 0;
    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    // Past ANSWERED uploads every answer waits: the requests in flight when the process dies reached the service, unanswered.
    const emu = (emulator = await startTestEmulator({
      holdAnswer: (endpoint) => {
        if (endpoint !== 'documents') return undefined;
        uploads += 1;
        if (uploads <= ANSWERED) return undefined;
        held += 1;
        return hold;
      },
    }));
    const env = emulatorEnv(emu);
    const args = ['extract', inputs, '--out', join(dir, 'out'), '--json', '--rate-limit', 'none', '--concurrency', String(CONCURRENCY)];

    const first = startChildCli(args, env);
    // The positive signal: the service holds an upload past the first ANSWERED .
    await waitFor(() => held > 0, `an upload past the first ${ANSWERED}`, 300_000);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const heldAtKill = held;
    release();

    const rerun = await runCli(args, { env });
    expect(rerun.code, rerun.stderr.slice(-2000)).toBe(0);
    const lines = parseNdjson(rerun.stdout);
    expect(lines).toHaveLength(FILES);
    expect(lines.filter((line) => line.status === 'complete')).toHaveLength(FILES);
    expect(lines.filter((line) => line.reused !== undefined).length).toBeGreaterThanOrEqual(ANSWERED - CONCURRENCY);
    expect(readdirSync(join(dir, 'out')).length).toBe(FILES / PER_FOLDER);
    const counts = Object.values(emu.counters.uploadsBySha256);
    expect(counts).toHaveLength(FILES);
    // Sent twice: only uploads in flight when the process died, held unanswered or answered but not yet
    // received and written (at most one per request in flight; seen: 1 held and 2 sent again).
    const twice = counts.filter((count) => count === 2).length;
    expect(twice).toBeLessThanOrEqual(CONCURRENCY);
    expect(counts.every((count) => count <= 2)).toBe(true);
    console.log(`resume at scale: ${FILES} files, killed with ${heldAtKill} uploads held unanswered; ${twice} sent again once`);
  });
});

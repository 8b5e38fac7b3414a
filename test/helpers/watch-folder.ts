import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { EmulatorEvent, RunningEmulator } from '../../src/emulator/index.js';
import { FAST_FLAGS, emulatorEnv, startTestEmulator } from './emulator-run.js';
import { FakeClock } from './fake-clock.js';
import { startWatchOnFakeClock, type WatchRun } from './watch-run.js';
import { CORPUS, makeWorkspace } from './workspace.js';

/** A corpus file's bytes. */
export function corpusBytes(name: string): Buffer {
  return readFileSync(join(CORPUS, name));
}

/** A JPEG of its own: the receipt with bytes after its end marker, so each has its own sha256. */
export function distinctJpeg(label: string): Buffer {
  return Buffer.concat([corpusBytes('images/receipt.jpg'), Buffer.from(`\n${label}\n`)]);
}

export function writeFile(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

/** Append `bytes` to `path` in `pieces` pieces, calling `between` after each. */
export async function writeInPieces(path: string, bytes: Buffer, pieces: number, between: () => Promise<void>): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const size = Math.ceil(bytes.length / pieces);
  for (let at = 0; at < bytes.length; at += size) {
    appendFileSync(path, bytes.subarray(at, at + size));
    await between();
  }
}

/** Uploads the emulator saw, with the fake instant of each. */
export function recordUploads(emu: RunningEmulator): { sha256: string; at: number }[] {
  const uploads: { sha256: string; at: number }[] = [];
  emu.events.on('event', (event: EmulatorEvent) => {
    if (event.type === 'upload' && event.sha256) uploads.push({ sha256: event.sha256, at: event.at });
  });
  return uploads;
}

export interface WatchSetup {
  emu: RunningEmulator;
  env: NodeJS.ProcessEnv;
  clock: FakeClock;
  inbox: string;
  out: string;
  dir: string;
  uploads: { sha256: string; at: number }[];
  /** `docextract watch <inbox> --out <out> --json` plus `extra`, on the fake clock. */
  watch(extra?: string[], options?: Parameters<typeof startWatchOnFakeClock>[3]): WatchRun;
  resultExists(relativePath: string): boolean;
}

/** For a test file: each call gives an emulator and an empty inbox on one fake clock; the emulator is closed after each test. */
export function watchSuite(): () => Promise<WatchSetup> {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });
  return async () => {
    const setup = await watchSetup();
    emulator = setup.emu;
    return setup;
  };
}

async function watchSetup(): Promise<WatchSetup> {
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const emu = await startTestEmulator({ now: () => clock.now() });
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  const env = emulatorEnv(emu);
  return {
    emu,
    env,
    clock,
    inbox: ws.inputs,
    out: ws.out,
    dir: ws.dir,
    uploads: recordUploads(emu),
    watch: (extra = [], options = {}) =>
      startWatchOnFakeClock([ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', ...FAST_FLAGS, ...extra], env, clock, options),
    resultExists: (relativePath) => existsSync(join(ws.out, `${relativePath}.json`)),
  };
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startEmulator, type EmulatorEvent, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv } from './run-cli.js';
import { sha256Of } from './workspace.js';

/** The one key the reliability suites use; every secret check greps for exactly this text. */
export const TEST_KEY = 'sk_5ec2e7c0ffee00d15ea5edeadbeef042';

/**
 * Scaled-down time for the CLI: retries, the 503 pause and the 409 wait in
 * milliseconds instead of seconds and minutes. (A 429 still waits for the
 * server's Reset, at least 1 s: the client never trusts a Reset sooner.)
 */
export const FAST_FLAGS = ['--retry-base', '5ms', '--retry-max', '50ms', '--busy-pause', '50ms', '--conflict-delay', '20ms'];

/** Against startTestEmulator's server, which has no rate windows: none on the client either, and FAST_FLAGS. */
export const UNTHROTTLED_FLAGS = ['--rate-limit', 'none', ...FAST_FLAGS];

/** An emulator with the test key and no rate windows unless asked; `slow` adds 60 ms instead of 2 s. */
export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ keys: [TEST_KEY], rateLimits: [], slowMs: 60, ...options });
}

/** An isolated environment pointed at the emulator, with its state folder in a known place. */
export function emulatorEnv(emu: RunningEmulator, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: TEST_KEY, ...extra });
  env.DOCEXTRACT_STATE_DIR ??= join(env.HOME as string, 'state', 'docextract');
  return env;
}

/** A batch file: where it goes in the workspace, which corpus file it is, and its pages. */
export interface BatchFile {
  target: string;
  source: string;
  pages: number;
}

export function batchFiles(files: readonly BatchFile[]): Record<string, string> {
  return Object.fromEntries(files.map((file) => [file.target, file.source]));
}

export function totalPages(files: readonly BatchFile[]): number {
  return files.reduce((sum, file) => sum + file.pages, 0);
}

/**
 * Watches finalizes: the emulator emits `finalize` synchronously while it
 * handles the request, before the data is deleted, so this sees whether the
 * result file was on disk at that very moment: complete, of the source's
 * sha256, and naming the job being finalized (what a rerun after a crash
 * right now needs, to know that job's answer is in without asking the
 * server, which no longer has it).
 */
export function watchFinalizes(emu: RunningEmulator, outputsBySha: Map<string, string>): { finalized: number; beforeResult: string[] } {
  const seen = { finalized: 0, beforeResult: [] as string[] };
  emu.events.on('event', (event: EmulatorEvent) => {
    if (event.type !== 'finalize') return;
    seen.finalized += 1;
    const output = event.sha256 ? outputsBySha.get(event.sha256) : undefined;
    if (!output || !resultOfJob(output, event.sha256 as string, event.jobId)) seen.beforeResult.push(event.filename ?? event.jobId ?? '?');
  });
  return seen;
}

function resultOfJob(path: string, sha256: string, jobId: string | undefined): boolean {
  try {
    const result = JSON.parse(readFileSync(path, 'utf8')) as { status?: string; source?: { sha256?: string }; job?: { parent_job_id?: string } };
    return result.status === 'complete' && result.source?.sha256 === sha256 && result.job?.parent_job_id === jobId;
  } catch {
    return false;
  }
}

/** sha256 of each batch file in the workspace -> its result path. */
export function outputsBySha(files: readonly BatchFile[], inputs: string, out: string): Map<string, string> {
  return new Map(files.map((file) => [sha256Of(join(inputs, file.target)), join(out, `${file.target}.json`)]));
}

/** Every file was uploaded exactly once, and no other content twice. */
export function expectEachUploadedOnce(emu: RunningEmulator, files: readonly BatchFile[], inputs: string): void {
  expect(files.length, 'files to check').toBeGreaterThan(0);
  for (const file of files) {
    expect(emu.counters.uploadsBySha256[sha256Of(join(inputs, file.target))], `uploads of ${file.target}`).toBe(1);
  }
  expectNoContentUploadedTwice(emu, files.length);
}

/** No content was uploaded twice, and at least `atLeast` were uploaded: a run that uploaded nothing does not pass. */
export function expectNoContentUploadedTwice(emu: RunningEmulator, atLeast: number): void {
  const counts = Object.entries(emu.counters.uploadsBySha256);
  expect(counts.length, 'contents uploaded').toBeGreaterThanOrEqual(atLeast);
  expect(
    counts.filter(([, count]) => count !== 1),
    'contents uploaded more than once',
  ).toEqual([]);
}

/** The journal's records (state folder), torn tail ignored. */
export function readJournal(stateDir: string): Record<string, unknown>[] {
  const path = join(stateDir, 'journal.ndjson');
  if (!existsSync(path)) return [];
  const records: Record<string, unknown>[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a torn last line after kill -9
    }
  }
  return records;
}

/** Every regular file below `dir` (recursively), for secret greps. */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesBelow(path));
    else if (entry.isFile() || statSync(path).isFile()) found.push(path);
  }
  return found;
}

/** No stack trace in a stream meant for people. */
export function expectNoStackTrace(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /);
}

/** Two images, a PDF answered at once and two that split: the mixed folder of the library, MCP and package tests. */
export const MIXED_FILES: readonly BatchFile[] = [
  { target: 'img/receipt.jpg', source: 'images/receipt.jpg', pages: 1 },
  { target: 'img/id-card.png', source: 'images/id-card.png', pages: 1 },
  { target: 'short/three.pdf', source: 'pdf/pages-3.pdf', pages: 3 },
  { target: 'long/seven.pdf', source: 'pdf/linearized-7.pdf', pages: 7 },
  { target: 'long/twelve.pdf', source: 'pdf/pages-12.pdf', pages: 12 },
];

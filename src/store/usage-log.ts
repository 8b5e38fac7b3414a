/**
 * What each run spent, one JSON line per run and account
 * (`usage-<account>.ndjson` in the state folder): it grows per run, not per
 * file. Appended with O_APPEND (one write, so lines of two processes never
 * interleave) and fsynced, since a charge is a fact no later run can learn
 * again. Lines older than {@link USAGE_KEPT_MS} are dropped when the file
 * has grown past {@link COMPACT_ABOVE_BYTES}.
 */
import { closeSync, fstatSync, fsyncSync, readSync, writeSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { accountFiles } from './account-files.js';
import { writeFileAtomically } from './atomic-write.js';
import { hasErrorCode } from './fs-errors.js';
import { openPrivateFileSync, PRIVATE_FILE_MODE, readPrivateFile } from './private-files.js';
import { preparePrivateStateDir } from './private-state-dir.js';

/** How far back the records go: a little over a year, so that `--by month` compares a month with the same one last year. */
export const USAGE_KEPT_MS = 400 * 86_400_000;

/** Worth a rewrite only past this size (some thousands of runs). */
const COMPACT_ABOVE_BYTES = 512 * 1024;

const FILE_NAME = /^usage-([0-9a-f]+)\.ndjson$/;

export function usageLogPath(stateDir: string, account: string): string {
  return join(stateDir, `usage-${account}.ndjson`);
}

/** Append one record (a JSON value with a `finished_at` ISO date) durably; drop old lines first when the file has grown large. */
export async function appendUsageLine(stateDir: string, account: string, record: { finished_at: string }, nowMs: number): Promise<void> {
  await preparePrivateStateDir(stateDir);
  await compactUsageIfLarge(stateDir, account, nowMs);
  appendUsageLineNow(stateDir, account, record);
}

/** Drop lines older than {@link USAGE_KEPT_MS} once the file has grown large (before an append made with `appendUsageLineNow`). */
export function compactUsageIfLarge(stateDir: string, account: string, nowMs: number): Promise<void> {
  return compactIfLarge(usageLogPath(stateDir, account), nowMs);
}

/**
 * Append one record durably, synchronously: a second Ctrl-C exits inside its
 * signal handler, where no awaited write would finish, and a run's charges
 * must be on disk before it goes. Being synchronous, it also cannot be cut in
 * two by that handler: the line is written whole or not begun. The file is
 * opened as every state file is: 0600, never through a link.
 */
export function appendUsageLineNow(stateDir: string, account: string, record: { finished_at: string }): void {
  const fd = openPrivateFileSync(usageLogPath(stateDir, account), 'a+');
  try {
    // A line a crash cut short must not swallow this one: start on a line of its own.
    const { size } = fstatSync(fd);
    const last = Buffer.alloc(1);
    if (size > 0) readSync(fd, last, 0, 1, size - 1);
    const newline = size > 0 && last[0] !== 0x0a ? '\n' : '';
    writeSync(fd, `${newline}${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every parsable line of one account (or of every account), oldest first; a torn or edited line is passed over. */
export async function readUsageLines<T extends { finished_at: string }>(stateDir: string, account?: string): Promise<T[]> {
  const lines: T[] = [];
  for (const file of await accountFiles(stateDir, FILE_NAME, account)) lines.push(...parseLines<T>(await readPrivateFile(file.path)));
  return lines.sort((a, b) => Date.parse(a.finished_at) - Date.parse(b.finished_at));
}

function parseLines<T extends { finished_at: string }>(text: string): T[] {
  const parsed: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as T;
      if (value && typeof value.finished_at === 'string' && Number.isFinite(Date.parse(value.finished_at))) parsed.push(value);
    } catch {
      // a line cut short by a crash: the rest still counts
    }
  }
  return parsed;
}

async function compactIfLarge(path: string, nowMs: number): Promise<void> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return;
    throw error;
  }
  if (size <= COMPACT_ABOVE_BYTES) return;
  const oldest = nowMs - USAGE_KEPT_MS;
  const kept = parseLines(await readPrivateFile(path)).filter((line) => Date.parse(line.finished_at) >= oldest);
  await writeFileAtomically(path, kept.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: PRIVATE_FILE_MODE });
}

/**
 * The invariants a lying server must not break, each a function from what a
 * case run showed to the violations it found (empty: it holds). Kept apart
 * from the runner so that a violation names the rule and the evidence.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { EmulatorRequestLog } from '../../src/emulator/index.js';
import { parseNdjson } from '../helpers/workspace.js';
import { requestsNeeded } from './fuzz-case.js';
import { WINDOWS, type CaseObservation, type CaseRun } from './run-case.js';

export type Invariant = (seen: CaseObservation) => string[];

/** Faults after which the client cannot have the answer the server meant to give. */
const ANSWER_LOST = new Set(['reset_after', 'truncated_json', 'oversized_body', 'gzip_bomb', 'wrong_field', 'trickle_stop']);
/** Faults that only distort headers: the answer is usable and needs no second request. */
const HEADERS_ONLY = new Set(['slow', 'extra_headers', 'ratelimit_garbage', 'date_garbage']);
const FINAL_STATUSES = new Set(['complete', 'partial', 'failed']);
const LONGEST_WINDOW_MS = Math.max(...WINDOWS.map((window) => window.windowMs));
/** The retry policy's spread on waits the server dictates (RESET_JITTER_MS). */
const JITTER_MS = 1_000;

function lines(run: CaseRun): Record<string, unknown>[] | string {
  try {
    return parseNdjson(run.stdout);
  } catch (error) {
    return `stdout is not NDJSON (${(error as Error).message}): ${run.stdout.slice(0, 200)}`;
  }
}

function completeOnDisk(output: string, sha256: string): boolean {
  if (!existsSync(output)) return false;
  try {
    const result = JSON.parse(readFileSync(output, 'utf8')) as { status?: string; source?: { sha256?: string } };
    return result.status === 'complete' && result.source?.sha256 === sha256;
  } catch {
    return false;
  }
}

function creditsBySha(log: EmulatorRequestLog[], endpoint: string): Map<string, number> {
  const credits = new Map<string, number>();
  for (const entry of log) {
    if (entry.endpoint === endpoint && entry.sha256 && entry.credits) credits.set(entry.sha256, (credits.get(entry.sha256) ?? 0) + entry.credits);
  }
  return credits;
}

/** No crash: an exit code the README documents, no stack trace, no internal error, in either run. */
export const noCrash: Invariant = ({ first, second }) =>
  [
    ['first', first],
    ['second', second],
  ].flatMap(([name, run]) => {
    const { code, stderr } = run as CaseRun;
    const found: string[] = [];
    if (![0, 1, 4].includes(code)) found.push(`${name} run exited ${code}: ${stderr.slice(-300)}`);
    if (/\n\s+at /.test(stderr)) found.push(`${name} run printed a stack trace: ${stderr.slice(-300)}`);
    if (stderr.includes('internal_error')) found.push(`${name} run ended in an internal error: ${stderr.slice(-300)}`);
    return found;
  });

/** Every input has exactly one line in --json output, with a final status (complete, partial or failed). */
export const everyInputFinal: Invariant = ({ files, first, second }) =>
  [
    ['first', first],
    ['second', second],
  ].flatMap(([name, run]) => {
    const parsed = lines(run as CaseRun);
    if (typeof parsed === 'string') return [`${name} run: ${parsed}`];
    return files.flatMap((file) => {
      const mine = parsed.filter((line) => String(line.file).endsWith(file.target));
      if (mine.length !== 1) return [`${name} run: ${mine.length} lines for ${file.target}`];
      const status = String(mine[0]?.status);
      return FINAL_STATUSES.has(status) ? [] : [`${name} run: ${file.target} ended ${status} (${JSON.stringify(mine[0]?.error)})`];
    });
  });

/**
 * No result that was paid for is lost:
 * - a charged synchronous answer that reached the client intact is on disk after the run;
 * - a file whose chunks were charged is on disk, or its job is still in the journal (resumable);
 * - run again on a healthy server, every file completes, and no page of a split file is paid twice.
 */
export const paidResultsKept: Invariant = ({ files, first, second }) => {
  const found: string[] = [];
  const bySha = new Map(files.map((file) => [file.sha256, file]));
  for (const entry of first.log) {
    if (entry.endpoint !== 'documents' || entry.status !== 200 || !entry.credits || !entry.sha256) continue;
    if (entry.fault !== undefined && ANSWER_LOST.has(entry.fault)) continue;
    const file = bySha.get(entry.sha256);
    if (file && !completeOnDisk(file.output, file.sha256))
      found.push(`${file.target}: a charged synchronous answer arrived intact${entry.fault ? ` (${entry.fault})` : ''}, but no complete result is on disk`);
  }
  const manifests = new Set(first.journal.filter((record) => record.type === 'manifest').map((record) => record.sha256));
  for (const sha of creditsBySha(first.log, 'process').keys()) {
    const file = bySha.get(sha);
    if (file && !completeOnDisk(file.output, sha) && !manifests.has(sha))
      found.push(`${file.target}: chunks were charged, but neither a complete result nor its job in the journal remains`);
  }
  const chunkCredits = [creditsBySha(first.log, 'process'), creditsBySha(second.log, 'process')];
  for (const file of files) {
    if (!completeOnDisk(file.output, file.sha256)) found.push(`${file.target}: not complete after a second run on a healthy server`);
    const paid = chunkCredits.reduce((sum, credits) => sum + (credits.get(file.sha256) ?? 0), 0);
    if (file.pages > 3 && paid > file.pages) found.push(`${file.target}: ${paid} credits paid for chunks of ${file.pages} pages`);
  }
  return found;
};

/**
 * Credits are counted as the service charged them: per file, what --json
 * reports differs from what the emulator charged by no more than the charges
 * whose answers were lost (the client cannot know of those, or counts a lost
 * synchronous answer as probably charged).
 */
export const creditsCounted: Invariant = ({ files, first }) => {
  const parsed = lines(first);
  if (typeof parsed === 'string') return [];
  return files.flatMap((file) => {
    const line = parsed.find((l) => String(l.file).endsWith(file.target));
    if (!line) return [];
    const mine = first.log.filter((entry) => entry.sha256 === file.sha256);
    const charged = mine.reduce((sum, entry) => sum + (entry.credits ?? 0), 0);
    const lostCharges = mine
      .filter((entry) => entry.status === 'reset' || (entry.fault !== undefined && ANSWER_LOST.has(entry.fault)))
      .reduce((sum, entry) => sum + (entry.credits ?? 0), 0);
    const reported = Number(line.credits);
    return Math.abs(reported - charged) > lostCharges
      ? [`${file.target}: ${reported} credits reported, ${charged} charged (${lostCharges} of them on lost answers)`]
      : [];
  });
};

/** No job is finalized before its complete result is on disk. */
export const noFinalizeBeforeWrite: Invariant = ({ finalizedBeforeResult }) =>
  finalizedBeforeResult.map((job) => `finalized before its result was on disk: ${job}`);

/**
 * Requests stay within what the batch needs plus what the faults cost: every
 * failed answer (and every real 429) may cost one more request, and each split
 * file up to three more collect rounds. The second run needs only what the
 * first left undone, so it is not bounded here.
 */
export const requestsBounded: Invariant = ({ files, first }) => {
  // 2: the free calls every run starts with, models (the model checked) and health (the warm-up).
  const needed = 2 + files.reduce((sum, file) => sum + requestsNeeded(file.pages), 0);
  const failedAnswers = Object.entries(first.faultsInjected)
    .filter(([name]) => !HEADERS_ONLY.has(name.split('.')[1] ?? ''))
    .reduce((sum, [, count]) => sum + count, 0);
  const real429s = first.log.filter((entry) => entry.status === 429 && entry.fault !== 'rate_limit').length;
  const collectRounds = 3 * files.filter((file) => file.pages > 3).length;
  const bound = needed + failedAnswers + real429s + collectRounds;
  return first.requests > bound
    ? [
        `${first.requests} requests sent; bound ${bound} = ${needed} needed + ${failedAnswers} failed answers + ${real429s} real 429s + ${collectRounds} collect rounds`,
      ]
    : [];
};

/** A wait announced as "next request slot in …", in milliseconds (formatDuration's forms). */
function announcedWaits(stderr: string): number[] {
  return [...stderr.matchAll(/next request slot in (?:(\d+)h (\d+)m|(\d+)m (\d+)s|(\d+)s|(\d+)ms)/g)].map(
    ([, h, hm, m, ms, s, millis]) =>
      (Number(h ?? 0) * 60 + Number(hm ?? 0)) * 60_000 + Number(m ?? 0) * 60_000 + Number(ms ?? 0) * 1000 + Number(s ?? 0) * 1000 + Number(millis ?? 0),
  );
}

/**
 * No wait beyond its window: whatever the headers said, no announced wait and
 * no wait the clock ran out is longer than the longest rate window plus jitter.
 */
export const waitsWithinWindow: Invariant = ({ first, second, sleeps }) => {
  const limit = LONGEST_WINDOW_MS + JITTER_MS;
  const announced = [...announcedWaits(first.stderr), ...announcedWaits(second.stderr)].filter((ms) => ms > limit + 500); // shown rounded to seconds
  const performed = sleeps.filter((sleep) => sleep.fired && sleep.ms > limit).map((sleep) => sleep.ms);
  return [
    ...announced.map((ms) => `announced a wait of ${ms} ms (longest window ${LONGEST_WINDOW_MS} ms)`),
    ...performed.map((ms) => `waited ${ms} ms on the clock (longest window ${LONGEST_WINDOW_MS} ms)`),
  ];
};

export const INVARIANTS: Record<string, Invariant> = {
  noCrash,
  everyInputFinal,
  paidResultsKept,
  creditsCounted,
  noFinalizeBeforeWrite,
  requestsBounded,
  waitsWithinWindow,
};

/** Every violation of every invariant, each prefixed with the invariant's name. */
export function violationsOf(seen: CaseObservation): string[] {
  return Object.entries(INVARIANTS).flatMap(([name, invariant]) => invariant(seen).map((violation) => `${name}: ${violation}`));
}

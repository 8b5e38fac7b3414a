/**
 * What the batch journal records. Chunk job ids exist only in the 202
 * manifest, so the manifest is journaled (and fsynced) before any chunk is
 * processed; an upload of a document that may split is announced by an
 * intent first, so that a crash between sending and answering leaves a trace
 * of a job that may be open on the server.
 */
import { isJobId } from '../api/job-id.js';
import type { PartOf } from './batch-types.js';

/** A part's place in its source, as the journal keeps it (the source's pages are in the source's result, not repeated in every part's record). */
export type JournaledPart = Omit<PartOf, 'pages'>;

export interface ChunkRef {
  jobId: string;
  pages: string;
}

interface RecordBase {
  /** Hash of base URL and key: jobs are scoped to a key. */
  account: string;
  at: number;
}

export type JournalRecord =
  | (RecordBase & {
      type: 'upload-intent';
      intentId: string;
      sha256: string;
      path: string;
      pages: number | null;
      /** Source pages cut out and sent (--pages); absent: the whole file. */ sourcePages?: number[];
    })
  | (RecordBase & {
      type: 'upload-answered';
      intentId: string;
      sha256: string;
      /** not-sent: no connection was made, so the server cannot hold a job for it. */ outcome: 'sync' | 'rejected' | 'not-sent';
    })
  | (RecordBase & {
      type: 'manifest';
      intentId: string;
      sha256: string;
      path: string;
      output: string;
      parentJobId: string;
      chunks: ChunkRef[];
      pages: number;
      expiresAt: number;
      model: string | null;
      /**
       * The source's pages cut out and sent (--pages); absent: the whole file.
       * With sha256 (always the source's, never the cut's), what the job answers.
       */
      sourcePages?: number[];
      /** The source's own page count, with `sourcePages`. */
      sourcePageCount?: number;
      /** The job is one part of a source past the service's limits: whoever finishes it rewrites the source's result (collect rebuilds the part from this). */
      part?: JournaledPart;
    })
  | (RecordBase & { type: 'chunk-done'; parentJobId: string; chunkJobId: string; charged: number })
  | (RecordBase & { type: 'result-written'; parentJobId: string; output: string; status: 'complete' | 'partial' })
  | (RecordBase & { type: 'finalized'; parentJobId: string })
  | (RecordBase & { type: 'job-closed'; parentJobId: string; reason: string })
  /**
   * A `--force` run of `command` started (or resumed an unfinished one): a
   * result written since `since` was extracted by that forced run, and a
   * rerun of the same command keeps it rather than paying for it again.
   */
  | (RecordBase & { type: 'force-run'; command: string; since: number })
  /** That forced run ended with nothing left undone by a stop: the next `--force` of the command extracts everything again. */
  | (RecordBase & { type: 'force-run-ended'; command: string });

type ManifestRecord = Extract<JournalRecord, { type: 'manifest' }>;

/** A multi-page job as the journal knows it: its manifest, and what happened since. */
export interface JournaledJob extends Omit<ManifestRecord, 'type' | 'at' | 'intentId'> {
  doneChunks: Map<string, number>;
  resultWritten?: { output: string; status: 'complete' | 'partial' };
  finalized: boolean;
  closed?: string;
}

/** An upload announced but never answered: the server may hold a job for it until the TTL passes. */
interface UnansweredUpload {
  intentId: string;
  account: string;
  sha256: string;
  path: string;
  at: number;
  /** The pages cut out and sent (--pages); absent: the whole file. */
  sourcePages?: number[];
  /**
   * Its file has been completed since, by a later upload: nobody will finish
   * the job this send may have left, so it is no longer shown as work left,
   * but it may still hold one of the key's open-job slots until its TTL, so
   * the planner still counts it.
   */
  superseded?: true;
}

/** A `--force` run that has not ended: since when its results count as extracted by it. */
interface ForceEpoch {
  command: string;
  since: number;
  /** The record that says so (compaction keeps it). */
  record: JournalRecord;
}

export interface JournalState {
  jobs: Map<string, JournaledJob>;
  unanswered: UnansweredUpload[];
  /** Unfinished `--force` runs, by account and command. */
  forceEpochs: Map<string, ForceEpoch>;
}

/** Where `forceEpochs` keeps a command's unfinished forced run. */
export function forceEpochKey(account: string, command: string): string {
  return `${account} ${command}`;
}

/** Replay records in order into the current picture of jobs. */
export function replayJournal(records: readonly JournalRecord[]): JournalState {
  const jobs = new Map<string, JournaledJob>();
  const pendingIntents = new Map<string, UnansweredUpload>();
  const forceEpochs = new Map<string, ForceEpoch>();
  for (const record of records) {
    switch (record.type) {
      case 'force-run':
        forceEpochs.set(forceEpochKey(record.account, record.command), { command: record.command, since: record.since, record });
        break;
      case 'force-run-ended':
        forceEpochs.delete(forceEpochKey(record.account, record.command));
        break;
      case 'upload-intent':
        pendingIntents.set(record.intentId, {
          intentId: record.intentId,
          account: record.account,
          sha256: record.sha256,
          path: record.path,
          at: record.at,
          ...(record.sourcePages ? { sourcePages: record.sourcePages } : {}),
        });
        break;
      case 'upload-answered':
        pendingIntents.delete(record.intentId);
        if (record.outcome === 'sync') closeIntentsOf(pendingIntents, record.account, record.sha256, 'any');
        break;
      case 'manifest': {
        // Ids read back pass the rule answers pass (api/job-id.ts): a journal written before it, or edited,
        // may hold one that would become a path or a pasted command. Such a job is not one this client can
        // name; its upload stays unanswered, so its open-job slot is still counted until the TTL passes.
        if (!manifestIdsAreJobIds(record)) break;
        pendingIntents.delete(record.intentId);
        const { type: _type, at: _at, intentId: _intentId, ...manifest } = record;
        jobs.set(record.parentJobId, { ...manifest, doneChunks: new Map(), finalized: false });
        break;
      }
      case 'chunk-done':
        jobs.get(record.parentJobId)?.doneChunks.set(record.chunkJobId, record.charged);
        break;
      case 'result-written': {
        const job = jobs.get(record.parentJobId);
        if (job) job.resultWritten = { output: record.output, status: record.status };
        if (job && record.status === 'complete') closeIntentsOf(pendingIntents, job.account, job.sha256, job.sourcePages);
        break;
      }
      case 'finalized': {
        const job = jobs.get(record.parentJobId);
        if (job) job.finalized = true;
        break;
      }
      case 'job-closed': {
        const job = jobs.get(record.parentJobId);
        if (job) job.closed = record.reason;
        break;
      }
    }
  }
  return { jobs, unanswered: [...pendingIntents.values()], forceEpochs };
}

/**
 * The file of these intents is complete now (its result is written), by the
 * run that announced them or a later one: the warning that an earlier send
 * of it may hold a job is closed (the design notes: a part finished by any
 * command completes its source), but the slot such a job may hold is still
 * counted until the TTL (a lost answer's job is open on the server all the
 * same). `selection` is the pages the result answers (undefined: the whole
 * file); a sync answer names none, and closes every selection of the content.
 */
function closeIntentsOf(pending: Map<string, UnansweredUpload>, account: string, sha256: string, selection: readonly number[] | undefined | 'any'): void {
  for (const [intentId, intent] of pending) {
    if (intent.account !== account || intent.sha256 !== sha256) continue;
    if (selection !== 'any' && (intent.sourcePages ?? []).join(',') !== (selection ?? []).join(',')) continue;
    pending.set(intentId, { ...intent, superseded: true });
  }
}

function manifestIdsAreJobIds(record: ManifestRecord): boolean {
  return isJobId(record.parentJobId) && Array.isArray(record.chunks) && record.chunks.every((chunk) => isJobId(chunk.jobId));
}

/** Still worth resuming: not finalized, not closed, not expired. */
export function isResumable(job: JournaledJob, nowMs: number): boolean {
  return !job.finalized && !job.closed && job.expiresAt > nowMs;
}

/** The records to keep when compacting: everything about jobs still resumable, unanswered uploads still inside their TTL, and the last record of each unfinished forced run. */
export function recordsWorthKeeping(records: readonly JournalRecord[], nowMs: number, ttlMs: number): JournalRecord[] {
  const state = replayJournal(records);
  const liveJobs = new Set([...state.jobs.values()].filter((job) => isResumable(job, nowMs)).map((job) => job.parentJobId));
  const liveIntents = new Set(state.unanswered.filter((u) => u.at + ttlMs > nowMs).map((u) => u.intentId));
  const liveForceRuns = new Set([...state.forceEpochs.values()].map((epoch) => epoch.record));
  return records.filter((record) => {
    if (record.type === 'force-run') return liveForceRuns.has(record);
    if ('parentJobId' in record) return liveJobs.has(record.parentJobId);
    if (record.type === 'upload-intent') return liveIntents.has(record.intentId);
    return false;
  });
}

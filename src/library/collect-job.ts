/**
 * `collect <parent_job_id>` as the engine's one entry takes a run
 * (library/one-client-run.ts): the job finished in this command's runner when it
 * hosts, or submitted to the command that holds the state folder when it
 * rides along. A front door hands both to its run shell and words the report.
 */
import type { RunSettings } from '../batch/batch-types.js';
import type { ExtractionReport } from '../engine/batch-report.js';
import type { BatchEvents } from '../batch/batch-types.js';
import { journaledJobOf, runCollectJob } from '../engine/collect.js';
import type { HostedSession, RideAlong } from './run-shell.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { replayJournal, type JournalRecord } from '../batch/journal-records.js';
import { JOURNAL_FILE } from '../config/state-dir.js';
import { readJournalSnapshot } from '../store/journal-reader.js';
import { isObjectUri, objectUriOf } from '../util/object-uri.js';
import type { ObjectStoreOptions } from '../storage/object-store.js';
import { ObjectOutputError } from '../storage/object-store-error.js';
import type { ObjectOutput } from '../storage/object-output.js';
import { resultAddressOf } from '../storage/spool-layout.js';

/** Options of {@link collectJobRun}. */
export interface CollectJobOptions {
  /** The job to finish: its parent id, or the id of one of its chunks (the journal names its parent). */
  jobId: string;
  /** The run's settings, as `runSettings` of `docextract/settings` checks them (finalize, store, the credit cap, retries, the job TTL). */
  run: RunSettings;
  /** Where a job without its journal entry is looked for (a result that names it says it is done) and its result written; an `s3://` prefix needs `objects`. */
  outDir: string;
  /** How an `s3://` out is reached, and the spool (in the state folder) its results are mirrored in. */
  objects?: ObjectStoreOptions & { spoolDir: string };
  /** The job's run writes to a bucket (journalPutsJob): this command puts the result itself, so it never rides along. @default false */
  putsItself?: boolean;
}

/** One job's collect, as a run of the engine: what it does when it hosts, and what it submits when it rides along. */
export interface CollectJobRun {
  /** Finishes the job in this command's runner (which other commands may submit to), until `stop` drains it. */
  host(deps: HostedSession<BatchEvents>, stop?: AbortSignal): Promise<ExtractionReport>;
  /** Submitted to the command that holds the state folder; the report that comes back is the run's. Opaque: the engine's to take. None for an `s3://` out: its puts are this command's own, so it waits for the folder. */
  ride?: Extract<RideAlong<ExtractionReport, BatchEvents>, { work: unknown }>;
}

/**
 * The collect of one job (`docextract collect`): the pending or failed
 * chunks processed, the result collected and written, then the job
 * finalized; or, without a journal entry, what the server has, with the
 * missing pages named. Nothing is sent until the run is started. With an
 * `s3://` out, the result is put at its key (storage/object-output.ts) before
 * the job is finalized, as extract puts it: a put that fails keeps the paid
 * answer in the state folder, and the job stays open.
 *
 * A job the journal knows is written where the run that started it writes
 * (as a local folder's job always was, whatever `--out` says): when that is a
 * bucket, it is put there, even if this collect names another prefix or a
 * folder (its mirror alone would leave the bucket without it), and a notice
 * names both places when they differ.
 */
export function collectJobRun(options: CollectJobOptions): CollectJobRun {
  const { jobId, run, outDir, objects } = options;
  if (isObjectUri(outDir) && !objects) throw new ObjectOutputError(`${outDir}: s3:// results need a state folder to mirror them in; none was given.`);
  const host: CollectJobRun['host'] = async (deps, stop) => {
    const journaled = journaledJobOf(deps.session.state, jobId);
    const runsAt = journaled && objects ? resultAddressOf(objects.spoolDir, journaled.output) : undefined;
    if (!isObjectUri(outDir) && !runsAt) return runCollectJob(deps, jobId, run, outDir, stop);
    const outputs: ObjectOutput[] = [];
    try {
      const asked = isObjectUri(outDir) ? await openOutput(outDir, objects, outputs) : undefined;
      let output = asked;
      if (journaled && !(asked && isBelow(asked.mirrorDir, journaled.output))) {
        const where = runsAt ? objectUriOf(runsAt.bucket, runsAt.key) : journaled.output;
        if (runsAt) {
          output = await openOutput(objectUriOf(runsAt.bucket, ''), objects, outputs);
          if (!isBelow(output.mirrorDir, journaled.output))
            throw new ObjectOutputError(
              `job ${journaled.parentJobId}: its result goes to ${where}, in the store that the extract that started it wrote to, and this command reaches another store (--s3-endpoint, AWS_ENDPOINT_URL_S3). Run collect with that extract's endpoint; nothing was sent.`,
            );
        }
        noticeElsewhere(deps, journaled, where, outDir);
      }
      const writeResult = output ? output.writer(deps.writeResult ?? writeFileAtomically) : deps.writeResult;
      return await runCollectJob({ ...deps, ...(writeResult ? { writeResult } : {}) }, jobId, run, asked?.mirrorDir ?? outDir, stop);
    } finally {
      for (const output of outputs) output.close();
    }
  };
  // An s3:// out is put by this command itself: it waits for the folder rather than riding along (the host would write its own mirror alone).
  if (isObjectUri(outDir) || options.putsItself === true) return { host };
  return { host, ride: { work: { collect: { jobId, outDir } }, finish: (report) => report } };
}

async function openOutput(uri: string, objects: CollectJobOptions['objects'], opened: ObjectOutput[]): Promise<ObjectOutput> {
  if (!objects) throw new ObjectOutputError(`${uri}: s3:// results need a state folder to mirror them in; none was given.`);
  const output = await (await import('../storage/object-output.js')).openObjectOutput(uri, objects);
  opened.push(output);
  return output;
}

/**
 * Whether the journal, read as `jobs` reads it (without the lock: another
 * command may hold the folder), says the job's run writes to a bucket: its
 * collect, whatever its `--out`, then puts the result itself.
 */
export async function journalPutsJob(stateDir: string, spoolDir: string, jobId: string): Promise<boolean> {
  const records = await readJournalSnapshot<JournalRecord>(join(stateDir, JOURNAL_FILE));
  const journaled = journaledJobOf(replayJournal(records), jobId);
  return journaled !== undefined && resultAddressOf(spoolDir, journaled.output) !== undefined;
}

function isBelow(dir: string, path: string): boolean {
  const below = relative(dir, resolve(path));
  return below !== '' && !below.startsWith('..') && !isAbsolute(below);
}

function noticeElsewhere(deps: Parameters<CollectJobRun['host']>[0], journaled: { parentJobId: string }, where: string, outDir: string): void {
  deps.events.notice?.(`job ${journaled.parentJobId} is written where the extract that started it writes: ${where} (not under ${outDir})`);
}

/**
 * The client's `collect`: one job finished (its pending chunks processed,
 * its result collected and written, the job finalized), hosting the state
 * folder or riding along on the command that holds it, with the records
 * every run leaves.
 */
import type { BatchEvents, DocumentOutcome } from '../../batch/batch-types.js';
import type { ExtractionReport } from '../../engine/batch-report.js';
import { isJobId } from '../../api/job-id.js';
import { accountOf, runDocuments } from '../one-client-run.js';
import { collectJobRun, journalPutsJob } from '../collect-job.js';
import { isObjectUri } from '../../util/object-uri.js';
import type { ClientSettings } from './client-options.js';
import type { ExtractionOptions } from './extract-options.js';
import { askingCommand, plannedExtraction, recorded, runEventsOf, runRecordsOf, wordsOf, type ExtractionRunReport } from './extract-run.js';
import type { RunHooks } from './run-handle.js';
import { InvalidOptionError } from './invalid-option-error.js';
import { runAccess, sharedTerms } from './run-access.js';

/** Options of one {@link DocExtract.collect}. */
export type CollectOptions = Pick<
  ExtractionOptions,
  'out' | 'storeDb' | 'maxCredits' | 'signal' | 'events' | 'display' | 'checker' | 'keepOutcomes' | 'lastRunWords'
>;

/** The job id, checked before anything is opened. */
export function checkedJobId(jobId: string): string {
  if (!isJobId(jobId)) throw new InvalidOptionError('jobId', 'not a job id: letters, digits, "_" and "-", as the service gave it', 'invalid_job_id');
  return jobId;
}

/** Finishes job `jobId`; its outcome goes to `finished`. */
export async function collectRun(
  client: ClientSettings,
  jobId: string,
  options: CollectOptions,
  stop: AbortSignal,
  finished: (outcome: DocumentOutcome) => void,
  hooks: RunHooks = {},
): Promise<ExtractionRunReport> {
  const { outDir, run } = plannedExtraction(client, options);
  const notice = options.events?.notice ?? client.notice;
  const records = runRecordsOf(client);
  const shown = runEventsOf(records, options, notice, finished);
  const access = runAccess(client, run.ttlMs, notice);
  const ended = { records, outDir, account: accountOf(access), keepOutcomes: options.keepOutcomes === true, ...wordsOf(options) };
  hooks.usageNow = () => records.recordUsage(ended.account);
  // A job whose run writes to a bucket is put by this command, even with a folder's out: it waits for a held folder rather than ride along.
  const putsItself = !isObjectUri(outDir) && (await journalPutsJob(client.stateDir, client.objects.spoolDir, jobId));
  const collect = collectJobRun({ jobId, run, outDir, objects: client.objects, putsItself });
  const checker = options.checker ? { checker: options.checker } : {};
  return runDocuments<ExtractionRunReport, BatchEvents>({
    access,
    command: askingCommand(client),
    terms: sharedTerms(client, run),
    events: () => shown.events(),
    signal: stop,
    host: async (deps) => recorded(await collect.host({ ...deps, ...checker }, stop), ended),
    ...(collect.ride ? { ride: { ...collect.ride, finish: (report: ExtractionReport) => recorded(report, ended) } } : {}),
    waiting: (message) => notice?.(message),
  });
}

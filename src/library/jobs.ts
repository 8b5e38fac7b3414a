/**
 * `docextract/jobs`: the jobs of a state folder, as `docextract jobs` and
 * MCP's `jobs` tool list them (open jobs, uploads sent without an answer,
 * files that failed), who holds the folder and the commands its host lists;
 * and what goes through the one gate of the folder (the host's, or a
 * session of its own): a refresh of open jobs, one chunk of a job
 * processed (`docextract process`), and a job finished from its id alone
 * (`docextract collect`).
 */
import type { BatchEvents } from '../batch/batch-types.js';
import { refreshJobs } from '../engine/refresh-jobs.js';
import type { ServerJobView } from '../engine/server-job-view.js';
import { refreshThroughHost } from '../engine/host/refresh-client.js';
import { runDocuments, type EngineAccess } from './one-client-run.js';

export { listJobs, type JobListing, type JobsOverview, type ListJobsOptions } from '../engine/list-jobs.js';
export { readRunningCommands, type RunningCommand } from '../engine/host/commands-file.js';
export { stateLockHolder } from '../store/lock.js';
export type { ServerJobView } from '../engine/server-job-view.js';
export { processChunkOnEngine } from './process-chunk.js';

/**
 * Ask the server about `jobIds` with `result` without finalize, each a
 * counted request through the state folder's gate: the running command's
 * when one hosts (it asks for us), else this process's own session.
 * `asking` is told before the first request, and whether it goes through
 * the running command.
 */
export function refreshOpenJobs(
  access: EngineAccess,
  command: string,
  jobIds: string[],
  asking: (throughHost: boolean) => void,
): Promise<Map<string, ServerJobView>> {
  return runDocuments<Map<string, ServerJobView>, BatchEvents>({
    access,
    command,
    terms: {},
    events: () => ({ documentFinished: () => undefined }),
    host: (deps) => {
      asking(false);
      return refreshJobs(deps.session, deps.api, jobIds, deps.clock);
    },
    ride: { submitWith: (socket, _events, who) => refreshThroughHost(socket, who, jobIds, () => asking(true)) },
    hosts: false,
    // A listing's refresh does not wait for a long run that hosts no one: it says the folder is in use.
    failWhenHeld: true,
    waiting: () => undefined,
  });
}

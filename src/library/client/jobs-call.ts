/**
 * The client's `jobs`: what the state folder knows of open jobs, unanswered
 * uploads and failed files, who holds the folder now and what it runs, and
 * (with `refresh`) what the service says of each live job. Read without the
 * lock: a run may be active, and reading its journal is harmless.
 */
import type { JobsOverview } from '../../engine/list-jobs.js';
import type { RunningCommand } from '../../engine/host/commands-file.js';
import type { ServerJobView } from '../../engine/server-job-view.js';
import { keyOf, type ClientSettings } from './client-options.js';
import { runAccess } from './run-access.js';
import { accountOf } from '../one-client-run.js';

/** Options of {@link DocExtract.jobs}. */
export interface JobsOptions {
  /** List the jobs of every account (key and service) the state folder holds, not only this client's; a client without a key can list only these. @default false */
  allAccounts?: boolean;
  /**
   * Ask the service about each live job: one counted request each (`result`
   * without finalize: nothing is finalized), through the state folder's one
   * gate, the running command's when one hosts. A run that hosts no one
   * holds the folder: `state_locked`, nothing sent. Needs a key. @default false
   */
  refresh?: boolean;
  /** Told before the first request of a refresh: how many jobs are asked about, and whether through the running command (the holder). */
  onAsking?: (asking: { jobs: number; throughHost: boolean; holder?: StateHolder }) => void;
}

/** The process that holds the state folder: a run that hosts every command's work, or one that hosts no one. */
export interface StateHolder {
  /** Its process id, on `hostname`. */
  pid: number;
  /** The machine it runs on (os.hostname()). */
  hostname: string;
  /** When it took the folder (Unix ms). */
  startedAt: number;
}

/** What {@link DocExtract.jobs} gives: the listing, who runs now, and what the service said on a refresh. */
export interface JobsListing extends JobsOverview {
  /** The process holding the state folder now; none when no run is active. */
  holder?: StateHolder;
  /** The commands the holder lists as running (itself and those riding along); empty when none runs, or the holder lists none yet. */
  running: RunningCommand[];
  /** With `refresh`: what the service said of each live job, by its parent job id; else empty. */
  server: Map<string, ServerJobView>;
}

export async function jobsCall(settings: ClientSettings, command: string, options: JobsOptions): Promise<JobsListing> {
  const account = options.allAccounts ? undefined : accountOf({ baseUrl: settings.baseUrl, apiKey: keyOf(settings) });
  const { listJobs, stateLockHolder, readRunningCommands } = await import('../jobs.js');
  const { stateDir, clock } = settings;
  const holder = await stateLockHolder(stateDir, { clock });
  const running = holder ? await readRunningCommands(stateDir) : [];
  const overview = await listJobs({ stateDir, account, nowMs: clock.now(), ttlMs: settings.run.ttlMs });
  const onAsking = (jobs: number, throughHost: boolean): void => options.onAsking?.({ jobs, throughHost, ...(holder ? { holder } : {}) });
  const server = options.refresh ? await refreshed(settings, command, overview, onAsking) : new Map<string, ServerJobView>();
  return { ...overview, ...(holder ? { holder } : {}), running, server };
}

async function refreshed(
  settings: ClientSettings,
  command: string,
  overview: JobsOverview,
  onAsking: (jobs: number, throughHost: boolean) => void,
): Promise<Map<string, ServerJobView>> {
  const live = overview.jobs.filter((job) => job.state !== 'expired').map((job) => job.parent_job_id);
  if (live.length === 0) return new Map();
  const { refreshOpenJobs } = await import('../jobs.js');
  return refreshOpenJobs(runAccess(settings, settings.run.ttlMs), command, live, (throughHost) => onAsking(live.length, throughHost));
}

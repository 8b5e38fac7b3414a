/**
 * `docextract watch <folder>` as a run of the engine (library/one-client-run.ts):
 * the folder watched in this command's runner when it hosts, or its
 * arrivals submitted as they settle to the command that holds the state
 * folder when it rides along. A front door hands both to its run shell and
 * words the report.
 */
import type { ApiClient } from '../api/index.js';
import type { RunSettings } from '../batch/batch-types.js';
import type { WatchOptions } from '../engine/watch.js';
import type { WatchEvents, WatchReport } from '../engine/watch-types.js';
import type { Clock } from '../util/clock.js';
import type { HostedSession, RideAlong } from './run-shell.js';

/** Options of {@link watchFolderRun}: the watch's own (the folder, settling, rescans, moves, planning, reuse) and the run's. */
export type WatchFolderOptions = Omit<WatchOptions, 'record'> & {
  /** The run's settings, as `runSettings` of `docextract/settings` checks them. */
  run: RunSettings;
  /** The client (and where its warnings go) for the free check of the document types before the first arrival is submitted to the command that holds the state folder; a hosting watch checks them with its own session. */
  checkTypesWith: () => Promise<{
    /** The client the free `models` call goes through. */
    api: ApiClient;
    /** Said when the service's list cannot be read, and the types go unchecked. */
    notice: (message: string) => void;
  }>;
  /** The time of a watch that rides along (settling, the status line); a hosting one takes the session's. */
  clock: Clock;
};

/** One folder's watch, as a run of the engine: what it does when it hosts, and how it rides along. */
export interface WatchFolderRun {
  /** Watches the folder in this command's runner (which other commands may submit to), until `stop` drains it. */
  host(deps: HostedSession<WatchEvents>, stop?: AbortSignal): Promise<WatchReport>;
  /** Its arrivals submitted to the command that holds the state folder as they settle. Opaque: the engine's to take. */
  ride: RideAlong<WatchReport, WatchEvents>;
}

/**
 * The watch of one folder (`docextract watch`): each file that settles in it
 * planned as `extract` plans its inputs, sent, its result written, until the
 * run's signal drains it. Nothing is watched until the run is started.
 */
export async function watchFolderRun(options: WatchFolderOptions): Promise<WatchFolderRun> {
  // Loaded for a watch only, after the command has tuned the heap: no other run loads the hot folder.
  const [{ runWatchBatch, WatchRecord }, { watchThroughHost }, { checkModelNamesBeforeSending, modelsOfRules }, { refuseUnsafeMoveFolders }] =
    await Promise.all([
      import('../engine/watch.js'),
      import('../engine/host/watch-client.js'),
      import('../engine/check-models.js'),
      import('../engine/move-folder-safety.js'),
    ]);
  const { run, checkTypesWith, clock, ...watch } = options;
  // Moves out of a folder someone else could swap under them are refused before anything is watched.
  await refuseUnsafeMoveFolders({ root: watch.root, ...watch.moves });
  // One for the command: a handover between hosting and riding along starts another run, not another command.
  const watching: WatchOptions = { ...watch, record: new WatchRecord(watch.cwd) };
  return {
    host: (deps, stop) => runWatchBatch(deps, run, watching, stop),
    ride: {
      prepare: async () => {
        const { api, notice } = await checkTypesWith();
        await checkModelNamesBeforeSending({ api, events: { notice } }, ...modelsOfRules(watching.plan.models));
      },
      submitWith: (socket, events, who, stop) => watchThroughHost(socket, who, { events, clock, storeDb: run.storeDb }, watching, stop),
    },
  };
}

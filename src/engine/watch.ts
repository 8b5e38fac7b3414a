import type { RunSettings } from '../batch/batch-types.js';
import type { RunReport } from '../batch/runner.js';
import { arrivalsOf, startWatchedFolder, type WatchedFolderOptions } from './watched-folder.js';
import type { WatchEvents, WatchReport } from './watch-types.js';
import { sessionRunner } from './batch-session.js';
import type { BatchDeps } from './batch-session.js';
import { checkModelNamesBeforeSending, modelsOfRules } from './check-models.js';
import type { ModelRules } from './model-rules.js';
import type { PlanOptions } from './plan-documents.js';
import { plannedArrivals } from './arrivals.js';
import type { ArrivalOptions } from './resume-tasks.js';
import { setUpBatch } from './batch-setup.js';
import { WatchMoves } from './watch-moves.js';
import { ObjectWatchMoves, type ObjectMoveTargets } from './watch-object-moves.js';
import type { ObjectInbox } from '../storage/object-inbox.js';
import { pacedBy } from '../util/paced.js';
import { CompactEvery } from './compact-every.js';
import { WatchRecord, WatchTally } from './watch-tally.js';
import { partsOfRun } from './parts.js';
import { forcedReuse } from './force-run.js';

export { WatchRecord } from './watch-tally.js';
import { collectTaskOf } from './collect.js';
import { runHosted } from './host/hosted-run.js';
import type { HostedRun } from './host/hub.js';
import { KNOWN_ANSWERS, RUNNING_AHEAD, RunningWindow } from './running-window.js';

export interface WatchOptions extends WatchedFolderOptions {
  /** Folder display paths are relative to. */
  cwd: string;
  plan: Omit<PlanOptions, 'cwd' | 'listed' | 'models'> & { models: ModelRules };
  reuse: Omit<ArrivalOptions, 'storeDb'>;
  /** What the command finished over its runs (riding along, then hosting after a handover): one per command. @default one for this run */
  record?: WatchRecord;
  /** `watch s3://…`: this inbox listed every `pollMs` instead of the folder `root` watched, and its objects moved to `moves`. @default a local folder */
  objects?: { inbox: ObjectInbox; pollMs: number; moves: ObjectMoveTargets };
  /**
   * What identifies the watch (its folder, arguments and output folder), for `--force`: a forced
   * watch stopped with documents left undone resumes when watched again, keeping what it
   * extracted; stopped with none, it has ended. @default none: every forced watch extracts every file
   */
  forceCommand?: string;
}

/**
 * `docextract watch`: the same runner as `extract`, fed by a hot folder. Each
 * settled arrival is planned exactly as `extract` plans its inputs
 * (preflight, then resume / reuse / dedupe / lead, through the same
 * ArrivalPlanner), so what was done before costs nothing. Runs until `stop`
 * (then drains like extract), or until no upload can be admitted any more.
 */
export async function runWatchBatch(
  deps: BatchDeps & { events: WatchEvents },
  settings: RunSettings,
  options: WatchOptions,
  stop?: AbortSignal,
): Promise<WatchReport> {
  await checkModelNamesBeforeSending(deps, ...modelsOfRules(options.plan.models));
  const forced = await forcedReuse(deps, options.reuse, options.forceCommand);
  const batch = await setUpBatch(deps, settings, options.outDir, forced.reuse);
  const { planner } = batch;
  const notice = (message: string): void => deps.events.notice?.(message);
  const { objects } = options;
  const moves = objects
    ? new ObjectWatchMoves(objects.inbox, objects.moves, deps.events)
    : new WatchMoves({ root: options.root, ...options.moves }, options.outDir, deps.events);
  const journal = new CompactEvery(() => deps.session.compact(), notice);
  const parts = partsOfRun(deps, settings.storeDb, false);
  const tally = new WatchTally(deps.events, moves, journal, options.record ?? new WatchRecord(options.cwd), parts);
  const folder = objects
    ? undefined
    : await startWatchedFolder(options, deps.clock, {
        onError: notice,
        onSettling: (count) => tally.settlingNow(count),
      });
  deps.events.watching?.();
  // An object appears whole (a PUT is atomic): listed, it is taken, with no settling.
  const listed = (inbox: ObjectInbox, pollMs: number): AsyncIterable<string[]> => {
    const pages = inbox.arrivals(deps.clock, pollMs, notice, stop);
    return options.outputRoom ? pacedBy(pages, options.outputRoom) : pages;
  };
  const source = folder ? arrivalsOf(folder, options) : listed(objects!.inbox, objects!.pollMs);

  const running = new RunningWindow(RUNNING_AHEAD);
  const arrivals = plannedArrivals(source, {
    cwd: options.cwd,
    ...(objects ? { displayOf: (path: string) => objects.inbox.addressOf(path) } : {}),
    root: options.root,
    // Anyone may drop files here: a link is refused, never followed to what its dropper cannot read.
    plan: { ...options.plan, confinedTo: options.root },
    planner,
    ...(deps.checker ? { checker: deps.checker } : {}),
    knownAnswers: KNOWN_ANSWERS,
    arrived: (displayPath, path) => tally.arrived(displayPath, path),
    planned: (documents) => tally.planned(documents),
    // Gone between settling and preflight (renamed or deleted at once): nothing arrived.
    rejected: (outcome) => (outcome.error?.code === 'file_not_found' ? tally.vanished(outcome.file) : tally.documentFinished(outcome)),
    reused: (outcome) => tally.documentFinished(outcome),
    running,
    ...(stop ? { stop } : {}),
  });

  let report: RunReport;
  try {
    const runner = sessionRunner(deps, settings, {
      layers: [tally.joining, tally.charging],
      onFinished: (outcome, doc) => {
        planner.finished(outcome, doc);
        tally.runnerFinished(outcome);
        running.changed();
      },
      // Nothing has arrived yet: every journaled job counts, until a file that arrives takes it up.
      phantomJobs: batch.phantomJobs(),
      keepOutcomes: false,
    });
    const collectTask: HostedRun['collectTask'] = (jobId, otherOut, owner) => collectTaskOf(deps, jobId, settings, otherOut, owner);
    report = await runHosted(deps.host, runner, arrivals, stop, { planner, collectTask, ...(deps.checker ? { checker: deps.checker } : {}) }, false);
  } finally {
    await folder?.close();
    await tally.settled();
    await moves.drain();
    await journal.settled();
    await planner.indexed();
  }
  const strayJobs = batch.strayJobs();
  for (const job of planner.unclaimedJobs()) deps.events.strayJob?.(job);
  const watched = tally.record.report({ ...report, strayJobs });
  // A watch always ends by a stop: its forced run ends when the stop left none of its documents undone.
  await forced.ended(watched.counts.interrupted > 0 || Boolean(report.budgetExhausted) || Boolean(report.fatal));
  return watched;
}

import { forceEpochKey, type JournalState, type JournalRecord } from '../batch/journal-records.js';
import type { Journal } from '../store/journal.js';
import type { Clock } from '../util/clock.js';

/** What a forced run is journaled through: the session's journal and its state, as whom, when, and where its notice goes (not batch-session's types: the session's host imports this). */
interface ForceRunDeps {
  session: { journal: Journal<JournalRecord>; state: JournalState };
  account: string;
  clock: Pick<Clock, 'now'>;
  events: { notice?: (message: string) => void };
}

/**
 * How long an interrupted `--force` run stays resumable by running its
 * command again. Past it, the same command forces every file anew: a week
 * later, "extract again whatever is on disk" means what it says.
 */
const FORCE_RESUME_MS = 7 * 86_400_000;

/** A `--force` run of one command, as the journal keeps it. */
interface ForceRun {
  /** Results written since this instant were extracted by this forced run (or the interrupted one it resumes). */
  since: number;
  /** It resumes an interrupted forced run of the same command. */
  resumed: boolean;
}

/**
 * A forced run starts: it resumes the unfinished forced run of the same
 * command when there is one (recent enough), and journals that it runs, so
 * that a Ctrl-C, a budget stop or a crash leaves its start on record. Files
 * whose results it writes count as done for the command that resumes it,
 * and are not paid for twice.
 */
async function beginForceRun(journal: Journal<JournalRecord>, state: JournalState, account: string, command: string, now: number): Promise<ForceRun> {
  const resumedSince = resumableForceRun(state, account, command, now);
  const since = resumedSince ?? now;
  const record = { type: 'force-run', account, at: now, command, since } as const;
  await journal.append(record);
  // The session's picture follows what it journals: a host serves many runs, and a command riding along
  // that is stopped and run again while the same host runs must find its forced run there.
  state.forceEpochs.set(forceEpochKey(account, command), { command, since, record });
  return { since, resumed: resumedSince !== undefined };
}

/** When the unfinished forced run of `command` that running it now resumes started, if there is one (what `--dry-run` shows too). */
export function resumableForceRun(state: JournalState, account: string, command: string, now: number): number | undefined {
  const unfinished = state.forceEpochs.get(forceEpochKey(account, command));
  return unfinished !== undefined && now - unfinished.since < FORCE_RESUME_MS ? unfinished.since : undefined;
}

/** The forced run ended with nothing left undone by a stop: a later `--force` of the command extracts everything again. */
async function endForceRun(journal: Journal<JournalRecord>, state: JournalState, account: string, command: string, now: number): Promise<void> {
  await journal.append({ type: 'force-run-ended', account, at: now, command });
  state.forceEpochs.delete(forceEpochKey(account, command));
}

/** A run's reuse options once its forced run (if any) has begun, and how it ends. */
export interface ForcedReuse<R> {
  /** `reuse`, with `forcedSince` when the run resumes an unfinished forced run of its command. */
  reuse: R & { forcedSince?: number };
  /** The run is over: `leftUndone` (a stop, a budget, a fatal error left documents unfinished) keeps the forced run resumable; else it ends. */
  ended(leftUndone: boolean): Promise<void>;
}

/**
 * What `extract` and `watch` do with `--force`: a forced run of `command`
 * begins (or resumes the unfinished one, said in a notice), and ends once
 * the run stops with nothing left undone. Without `force` or a command, the
 * options are left as they are and nothing is journaled. A host does the
 * same for the forced run of a command riding along on it (host/hub.ts).
 */
export async function forcedReuse<R extends { force: boolean }>(deps: ForceRunDeps, reuse: R, command: string | undefined): Promise<ForcedReuse<R>> {
  if (!reuse.force || command === undefined) return { reuse, ended: async () => undefined };
  const forced = await beginForceRun(deps.session.journal, deps.session.state, deps.account, command, deps.clock.now());
  if (forced.resumed)
    deps.events.notice?.(
      `resuming the interrupted --force run of this command (started ${new Date(forced.since).toISOString()}): files it extracted are kept, the rest are extracted again`,
    );
  return {
    reuse: forced.resumed ? { ...reuse, forcedSince: forced.since } : reuse,
    ended: async (leftUndone) => {
      if (!leftUndone) await endForceRun(deps.session.journal, deps.session.state, deps.account, command, deps.clock.now());
    },
  };
}

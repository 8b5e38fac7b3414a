import type { BatchEvents, DocumentOutcome } from '../batch/batch-types.js';
import { BATCH_EVENTS, composeEvents, type EventLayer } from '../batch/event-sink.js';
import { compactUsageIfLarge } from '../store/usage-log.js';
import type { Clock } from '../util/clock.js';
import { EarlierUndone } from './earlier-undone.js';
import { recordLastRun } from './last-run.js';
import { RunTally } from './run-tally.js';
import { recordUsageNow } from './usage-recorder.js';

/** What identifies a run in its records. */
export interface RunRecordsOptions {
  /** The state folder the records are written to (the CLI's, or `extractDocuments`' `stateDir`). */
  stateDir: string;
  /** The folder the run was started in: usage is grouped by folder below it. */
  cwd: string;
  /** When the run started and each record was made. */
  clock: Clock;
  /** The command that ran it, as `docextract usage` shows it: extract, collect, watch, library. */
  command: string;
  /** The configuration profile the run used. @default "default" */
  profile?: string;
  /** The command line that ran it, quoted to paste: `docextract jobs` offers it to finish what the run left. @default none (a program's run) */
  commandLine?: string;
}

/**
 * The records one run leaves in the state folder, the same for the CLI and
 * for a program using the package: its outcome tally (kept as counts, not as
 * 100,000 outcomes), its usage record, written once, with every credit the
 * service charged it (per charge, not per finished file: a file stopped
 * halfway has paid for its chunks), and its last-run report for
 * `docextract jobs` and `review`.
 */
export class RunRecords {
  /** The run's outcomes, counted as they finish. */
  readonly tally: RunTally;
  private readonly startedAt: number;
  private usageRecorded = false;
  private readonly earlierUndone: EarlierUndone;

  constructor(private readonly run: RunRecordsOptions) {
    this.tally = new RunTally(run.cwd);
    this.startedAt = run.clock.now();
    this.earlierUndone = new EarlierUndone(run.stateDir);
  }

  /** When the run started (Unix ms, the run's clock). */
  get startedAtMs(): number {
    return this.startedAt;
  }

  /** The events a run is told through: its tally counts each finished document, charge and request, then `events` (its display) is told. */
  counting(events: BatchEvents): BatchEvents {
    const completing: EventLayer = {
      documentFinished: (next, outcome, doc) => {
        if (outcome.status === 'complete') this.earlierUndone.complete(doc?.path ?? outcome.source);
        next(outcome, doc);
      },
    };
    return composeEvents(BATCH_EVENTS, events, [this.tally.counting, completing]);
  }

  /**
   * The usage record, written at once (synchronously, so a second Ctrl-C on
   * its way out may call it) and only the first time: every credit is
   * recorded once, by the run that spent it.
   */
  recordUsage(account: string, requests = this.tally.requests): void {
    if (this.usageRecorded) return;
    this.usageRecorded = true;
    const { stateDir, cwd, command, profile } = this.run;
    recordUsageNow(
      stateDir,
      this.tally.usage.record({
        account,
        profile: profile ?? 'default',
        command,
        startedAtMs: this.startedAt,
        finishedAtMs: this.run.clock.now(),
        requests,
        cwd,
      }),
    );
  }

  /** The end of a run: the usage log compacted when large, its usage recorded (a fatal end included: the credits are gone either way). */
  async finishUsage(account: string, requests: number): Promise<void> {
    await compactUsageIfLarge(this.run.stateDir, account, this.run.clock.now()).catch(() => undefined);
    this.recordUsage(account, requests);
  }

  /**
   * The last-run report; `word` rewords each outcome that did not complete
   * (the CLI's words). It carries what earlier runs left undone and this one
   * did not finish: it replaces the account's last report.
   */
  async recordLastRun(account: string, outDir: string, word: (outcome: DocumentOutcome) => DocumentOutcome = (outcome) => outcome): Promise<void> {
    const earlier = await this.earlierUndone.carried(account, this.tally.notComplete).catch(() => []);
    await recordLastRun(this.run.stateDir, account, {
      outDir,
      outcomes: this.tally.notComplete.map(word),
      counts: this.tally.counts,
      startedAtMs: this.startedAt,
      finishedAtMs: this.run.clock.now(),
      ...(this.run.commandLine === undefined ? {} : { command: { line: this.run.commandLine, cwd: this.run.cwd } }),
      earlier,
    });
  }
}

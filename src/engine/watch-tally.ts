import type { BatchEvents, DocumentOutcome, DocumentStatus, PlannedDocument } from '../batch/batch-types.js';
import { BATCH_EVENTS, composeEvents, type EventLayer } from '../batch/event-sink.js';
import { OutcomeCounts } from '../batch/outcome-counts.js';
import type { ExtractionReport } from './batch-report.js';
import type { WatchEvents, WatchReport } from './watch-types.js';
import type { WatchMoves } from './watch-moves.js';
import { UsageTally } from './usage-record.js';
import type { CompactEvery } from './compact-every.js';
import type { PartResults } from './parts.js';
import { hash53 } from '../util/hash53.js';
import { HashedRecords } from '../util/hashed-records.js';

/**
 * What one watch command finished and spent, over every run it makes: it
 * may ride along, then host after a handover (or host, then ride along after
 * a takeover), and each run watches the folder anew. The counts, the usage,
 * the jobs left open and the summary's figures are the command's, not one
 * run's; and a file it already reported, answered again by its result on
 * disk when a later run retakes the folder, is not news: it is neither
 * shown nor counted again.
 */
export class WatchRecord {
  private readonly counted = new OutcomeCounts();
  readonly openJobs: ExtractionReport['openJobs'] = [];
  /** How many documents the command reported with each status. */
  get counts(): Readonly<Record<DocumentStatus, number>> {
    return this.counted.byStatus;
  }
  /** What the documents cost and saved, for the command's usage record (a watch keeps no list of outcomes). */
  readonly usage: UsageTally;
  /**
   * Each document reported complete: by a hash of its display path, a hash
   * of its result file's path and the run that reported it, packed in one
   * number, in a typed table (a watch of 100,000 files holds 21 to 43 bytes
   * each, not the two paths).
   */
  private readonly answered = new HashedRecords(1);
  private runs = 0;
  private requests = 0;
  private credits = 0;

  constructor(cwd: string) {
    // Credits as the service charged them: a file stopped halfway has paid for its chunks, and the run that resumes it pays only for the rest.
    this.usage = new UsageTally(cwd, 'charges');
  }

  /** A run of the command starts (it watches the folder anew): its number. */
  startRun(): number {
    return ++this.runs;
  }

  /**
   * An earlier run of this command reported this file, and its result is what answers it now: `run`
   * retook the folder. Once only: the same bytes written again later in this run are news again.
   */
  isRepeat(outcome: DocumentOutcome, run: number): boolean {
    const slot = this.answered.find(hash53(outcome.file));
    if (outcome.reused === undefined || slot < 0 || !outcome.output) return false;
    const { output, run: reportedIn } = unpack(this.answered.at(slot, 0));
    if (reportedIn >= run || output !== outputHash(outcome.output)) return false;
    this.answered.set(hash53(outcome.file), [pack(output, run)]);
    return true;
  }

  add(outcome: DocumentOutcome, run: number): void {
    this.counted.add(outcome);
    this.usage.add(outcome);
    if (outcome.status === 'interrupted' && outcome.job_id && outcome.expires_at) {
      this.openJobs.push({ parentJobId: outcome.job_id, file: outcome.file, expiresAt: outcome.expires_at });
    }
    if (outcome.status === 'complete' && outcome.output) this.answered.set(hash53(outcome.file), [pack(outputHash(outcome.output), run)]);
    else this.answered.delete(hash53(outcome.file));
  }

  /** A run of the command ended: its report, with what the command's earlier runs spent and finished. */
  report(run: Omit<ExtractionReport, 'openJobs'>): WatchReport {
    this.requests += run.requests;
    this.credits += run.credits;
    return {
      ...run,
      requests: this.requests,
      credits: this.credits,
      counts: { ...this.counted.byStatus },
      checksFailed: this.counted.checksFailed,
      openJobs: this.openJobs,
      usage: this.usage,
    };
  }
}

/** Runs of one command below 2^20, output hashes below 2^32: both fit one number exactly (< 2^53). */
const RUN_BITS = 2 ** 20;
const outputHash = (output: string): number => hash53(output) % 2 ** 32;
const pack = (output: number, run: number): number => output * RUN_BITS + (run % RUN_BITS);
const unpack = (packed: number): { output: number; run: number } => ({ output: Math.floor(packed / RUN_BITS), run: packed % RUN_BITS });

/**
 * One run's view of the watch: remembers the source path of each document
 * only until it finishes, moves sources once finished for good, and has the
 * journal compacted now and then (a watch may journal for days). What
 * finished goes to the command's record.
 */
export class WatchTally {
  private settling = 0;
  /** Display path -> absolute path of each document not finished yet. */
  private readonly sources = new Map<string, string>();
  private readonly run: number;
  /** The watch's layer of a run's events: each charge is counted in the command's usage first (every credit is recorded by the run that was charged it). */
  readonly charging: EventLayer;
  /** The display's events, told through `charging`. */
  readonly display: BatchEvents;

  /**
   * The watch's layer of a run's finished documents, before `charging`: a part's outcome is held, and its
   * source, once its one result is written, is counted and moved (`finished`), then passed on to be shown.
   */
  readonly joining: EventLayer;

  constructor(
    /** The watch's display: its folder state is told here directly. */
    private readonly shown: WatchEvents,
    private readonly moves: Pick<WatchMoves, 'finished'>,
    /** Told of every finished file: has the journal compacted now and then (none when riding along: the host's journal). */
    private readonly journal: Pick<CompactEvery, 'finished'>,
    readonly record: WatchRecord,
    /** The parts of the PDFs past the service's limits that arrived: a source is one document, finished when its last part is. */
    private readonly parts: PartResults,
  ) {
    this.run = record.startRun();
    this.charging = {
      creditsCharged: (next, credits, doc) => {
        record.usage.charged(credits, doc?.displayPath ?? '', doc?.model);
        next(credits, doc);
      },
    };
    this.joining = {
      documentFinished: (next, outcome, doc) => {
        if (!parts.isPart(outcome)) return next(outcome, doc);
        parts.note(outcome, (source) => {
          if (this.finished(source)) next(source);
        });
      },
    };
    this.display = composeEvents(BATCH_EVENTS, shown, [this.charging]);
  }

  /** Documents planned from an arrival: the parts among them are held until their source is whole. */
  planned(documents: readonly PlannedDocument[]): void {
    this.parts.add(documents);
  }

  arrived(displayPath: string, path: string): void {
    this.sources.set(displayPath, path);
    this.tellState();
  }

  vanished(displayPath: string): void {
    this.sources.delete(displayPath);
    this.tellState();
  }

  settlingNow(count: number): void {
    this.settling = count;
    this.tellState();
  }

  private tellState(): void {
    this.shown.folderState?.({ settling: this.settling, inProgress: this.sources.size });
  }

  /** A document the runner finished, counted and its source moved (a part: when its source is whole, by `joining`). */
  runnerFinished(outcome: DocumentOutcome): void {
    if (!this.parts.isPart(outcome)) this.finished(outcome);
  }

  /** A finished document, counted (and its source moved) before the display shows it; false when it is an earlier run's, not news. */
  private finished(outcome: DocumentOutcome): boolean {
    const source = this.sources.get(outcome.file);
    this.sources.delete(outcome.file);
    if (this.record.isRepeat(outcome, this.run)) {
      this.tellState();
      return false;
    }
    this.record.add(outcome, this.run);
    this.journal.finished();
    if (source !== undefined) this.moves.finished(outcome, source);
    this.tellState();
    return true;
  }

  /** What finished before the runner saw it (rejected by preflight, answered on disk): counted, then shown. */
  documentFinished(outcome: DocumentOutcome): void {
    if (this.parts.isPart(outcome)) return this.parts.note(outcome, (source) => this.documentFinished(source));
    if (this.finished(outcome)) this.display.documentFinished(outcome);
  }

  /** Once every source whose parts are all in has its result written and is told. */
  settled(): Promise<void> {
    return this.parts.settled();
  }
}

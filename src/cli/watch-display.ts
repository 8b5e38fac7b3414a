import { wordedForCli } from './outcome-words.js';
import { DisplayWarnings } from './display-warnings.js';
import type { Ora } from 'ora';
import type { DocumentOutcome } from '../index.js';
import type { FolderState, MoveRefusal, WatchEvents } from '../index.js';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import type { CliContext } from './context.js';
import { neverStarted } from '../library/outcomes.js';
import { clockTime, FinishedTally, humanLine, notStartedLines, plural, TimeLeftCountdown } from './outcome-lines.js';
import { fitParts } from './status-line.js';
import { renderUntrusted } from '../util/untrusted-text.js';

/**
 * What `watch` shows. Results are data, on stdout: one NDJSON line per file
 * under --json (so `docextract watch inbox --json | jq` is a pipeline), one
 * plain line per file otherwise. On a terminal, one status line on stderr
 * (an ora spinner): files being written, in flight, done, credits spent, the
 * next request slot when waiting for one, and the time left for what is taken.
 */
export class WatchDisplay extends DisplayWarnings implements WatchEvents {
  private readonly finished = new FinishedTally();
  private credits = 0;
  private waitUntil = 0;
  private waitReason = 'rate limit';
  private state: FolderState = { settling: 0, inProgress: 0 };
  /** "watching …" was said. */
  private announced = false;
  /** The scheduler's bound for what is taken and unfinished, and when it was told. */
  private readonly left = new TimeLeftCountdown();
  private spinner?: Ora;
  private ticker?: NodeJS.Timeout;

  private constructor(
    ctx: CliContext,
    private readonly folder: string,
    private readonly clock: Clock,
  ) {
    super(ctx);
  }

  static async create(ctx: CliContext, folder: string): Promise<WatchDisplay> {
    const display = new WatchDisplay(ctx, folder, ctx.clock);
    if (ctx.ui.interactive) {
      const { default: ora } = await import('ora');
      // discardStdin false: ora's raw-mode stdin would swallow the Ctrl-C our own handler needs.
      display.spinner = ora({
        text: display.statusText(),
        stream: ctx.io.stderr as NodeJS.WritableStream,
        discardStdin: false,
        color: ctx.ui.paint.level > 0 ? 'cyan' : false,
      }).start();
      // The countdowns (next slot, time left) move between events too.
      display.ticker = setInterval(() => display.refresh(), 1000).unref();
      // Every message, whoever says it, goes above the status line.
      ctx.ui.drawingWith((line) => display.above(() => ctx.io.stderr.write(`${line}\n`)));
    }
    return display;
  }

  watching(): void {
    // Said once: a handover (riding along, then hosting) watches the folder anew, but it is the same watch.
    if (this.announced) return;
    this.announced = true;
    if (!this.spinner) this.ctx.ui.info(`watching ${this.folder} (Ctrl-C to stop)`);
  }

  notMoved(refusal: MoveRefusal): void {
    this.notice(refusal.message);
  }

  folderState(state: FolderState): void {
    this.state = state;
    this.refresh();
  }

  creditsCharged(credits: number): void {
    this.credits += credits;
    this.refresh();
  }

  waiting(untilMs: number, reason: string): void {
    this.waitUntil = untilMs;
    this.waitReason = reason;
    this.refresh();
  }

  timeLeft(boundMs: number): void {
    this.left.tell(boundMs, this.clock.now());
    this.refresh();
  }

  documentFinished(finishedOutcome: DocumentOutcome): void {
    const outcome = wordedForCli(finishedOutcome, this.ctx.suggestedFlags());
    this.finished.add(outcome);
    // Said once, with their count, when the watch ends (finish).
    if (!this.ctx.options.json && neverStarted(outcome)) return this.refresh();
    const line = this.ctx.options.json ? JSON.stringify(outcome) : humanLine(outcome, this.ctx.ui.paint);
    this.above(() => this.ctx.io.stdout.write(`${line}\n`));
    this.refresh();
  }

  /** The closing summary, on stderr. */
  finish(report: { requests: number; credits: number }, startedAt: number): void {
    this.stop();
    if (!this.ctx.options.json)
      for (const line of notStartedLines(this.finished.notStartedFiles, this.ctx.ui.paint, this.ctx.options.verbose === true))
        this.ctx.io.stdout.write(`${line}\n`);
    this.ctx.ui.info(this.finished.summary(report, this.clock.now() - startedAt));
  }

  /** Takes the status line away. */
  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.spinner?.stop();
    this.spinner = undefined;
    this.ctx.ui.drawingWith(undefined);
  }

  /** Print something with the status line out of the way. */
  private above(print: () => void): void {
    this.spinner?.clear();
    print();
    this.spinner?.render();
  }

  private refresh(): void {
    if (this.spinner) this.spinner.text = this.statusText();
  }

  /**
   * One line, laid out by priority for the terminal's width: a line that
   * wraps cannot be cleared by the spinner, and was left on screen twice.
   */
  private statusText(): string {
    const now = this.clock.now();
    const waiting =
      this.waitUntil > now
        ? `${this.waitReason}; next request slot ${clockTime(this.waitUntil, this.waitUntil - now)} (in ${formatDuration(this.waitUntil - now)})`
        : '';
    const parts = [
      { text: `watching ${renderUntrusted(this.folder)}`, priority: 1 },
      { text: `${this.state.settling} being written`, priority: 5 },
      { text: `${this.state.inProgress} in flight`, priority: 3 },
      { text: `${this.finished.done} done`, priority: 2 },
      { text: plural(this.credits, 'credit'), priority: 6 },
      { text: waiting, priority: 2 },
      // The scheduler's own bound for what is taken, counted down between its updates.
      { text: this.state.inProgress > 0 ? this.left.text(now, 'at least ') : '', priority: 4 },
    ];
    // The spinner's frame and a space come first; one column spare.
    return fitParts(parts, (this.ctx.io.stderr.columns ?? 80) - 3);
  }
}

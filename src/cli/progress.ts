import { wordedForCli } from './outcome-words.js';
import { DisplayWarnings } from './display-warnings.js';
import type { MultiBar, SingleBar } from 'cli-progress';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../index.js';
import type { Clock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import type { CliContext } from './context.js';
import { neverStarted } from '../library/outcomes.js';
import { clockTime, FinishedTally, humanLine, notStartedLines, plural, TimeLeftCountdown } from './outcome-lines.js';
import { barWidthFor, fitParts, wrapToWidth } from './status-line.js';
import { renderUntrusted } from '../util/untrusted-text.js';

/**
 * The batch display. Results are data (stdout: NDJSON under --json, one line
 * per file otherwise); progress is not (stderr: a cli-progress multibar on a
 * terminal, plain lines elsewhere, nothing under --quiet).
 */
export class BatchDisplay extends DisplayWarnings implements BatchEvents {
  private readonly finished = new FinishedTally();
  private credits = 0;
  private requests = 0;
  private waitUntil = 0;
  private waitReason = '';
  /** Requests sent and not answered yet: what the line says while nothing else moves. */
  private awaiting = 0;
  private barWidth = barWidthFor(undefined);
  private ticker?: ReturnType<typeof setInterval>;
  private multibar?: MultiBar;
  private overall?: SingleBar;
  private readonly documentBars = new Map<string, SingleBar>();
  private lastWaitNotice = 0;
  /** Job slots held by jobs outside this run, and when the next probe goes. */
  private slotsHeldBy = 0;
  private slotsNextTry: number | undefined;
  private readonly left = new TimeLeftCountdown();

  private constructor(
    ctx: CliContext,
    private readonly total: number,
    private readonly clock: Clock,
  ) {
    super(ctx);
  }

  static async create(ctx: CliContext, total: number): Promise<BatchDisplay> {
    const display = new BatchDisplay(ctx, total, ctx.clock);
    if (ctx.ui.interactive) {
      const { MultiBar, Presets } = await import('cli-progress');
      display.barWidth = barWidthFor(ctx.io.stderr.columns);
      display.multibar = new MultiBar(
        {
          stream: ctx.io.stderr as NodeJS.WritableStream,
          // The last frame goes before the summary, on every way out (finish, clear): it was left among the summary lines.
          clearOnComplete: true,
          hideCursor: true,
          format: '{label} {bar} {value}/{total} {info}',
          autopadding: true,
          barsize: display.barWidth,
          // cli-progress redraws a bar only when its text changed; lines logged above push the bars down a row each, so an unchanged bar must be drawn again at its new row, or the row keeps whatever was there.
          forceRedraw: true,
        },
        Presets.shades_classic,
      );
      display.overall = display.multibar.create(total, 0, { label: 'files    ', info: '' });
      ctx.ui.drawingWith((line) => display.logAbove(line));
      // The countdowns (next slot, time left) move between events too: the line never sits still without a reason.
      display.ticker = setInterval(() => display.refresh(), 1000).unref();
    }
    return display;
  }

  documentStarted(doc: PlannedDocument, chunksTotal: number | null): void {
    if (this.multibar && chunksTotal) {
      // Rendered, then shortened: a cut never leaves half an escape's control in the label.
      this.documentBars.set(
        doc.displayPath,
        this.multibar.create(chunksTotal, 0, { label: shorten(renderUntrusted(doc.displayPath)), info: `chunks · ${doc.pages ?? '?'} pages` }),
      );
    } else if (!this.multibar && chunksTotal) {
      this.ctx.ui.info(`${doc.displayPath}: split into ${plural(chunksTotal, 'chunk')} (${plural(doc.pages, 'page')})`);
    }
  }

  chunkDone(doc: PlannedDocument, chunksDone: number): void {
    this.documentBars.get(doc.displayPath)?.update(chunksDone);
  }

  requestSent(): void {
    this.requests += 1;
    this.awaiting += 1;
    this.refresh();
  }

  creditsCharged(credits: number): void {
    this.credits += credits;
    this.refresh();
  }

  waiting(untilMs: number, reason: string): void {
    this.waitUntil = untilMs;
    this.waitReason = reason;
    const now = this.clock.now();
    if (!this.multibar && untilMs - now >= 5000 && now - this.lastWaitNotice >= 30_000) {
      this.lastWaitNotice = now;
      this.ctx.ui.info(
        `waiting: ${reason}; next request slot ${clockTime(untilMs, untilMs - now)} (in ${formatDuration(untilMs - now)})${this.left.text(now, ', at least ')}`,
      );
    }
    this.refresh();
  }

  timeLeft(boundMs: number): void {
    this.left.tell(boundMs, this.clock.now());
    this.refresh();
  }

  slotsHeld(held: number, nextTryAt: number | undefined): void {
    this.slotsHeldBy = held;
    this.slotsNextTry = nextTryAt;
    this.refresh();
  }

  requestUnreached(): void {
    this.requests -= 1;
    this.awaiting -= 1;
    this.refresh();
  }

  requestAnswered(): void {
    this.awaiting -= 1;
    this.refresh();
  }

  documentFinished(finishedOutcome: DocumentOutcome): void {
    const outcome = wordedForCli(finishedOutcome, this.ctx.suggestedFlags());
    this.finished.add(outcome);
    const bar = this.documentBars.get(outcome.file);
    if (bar) {
      this.multibar?.remove(bar);
      this.documentBars.delete(outcome.file);
    }
    if (this.ctx.options.json) {
      this.ctx.io.stdout.write(`${JSON.stringify(outcome)}\n`);
    } else if (neverStarted(outcome)) {
      // Said once, with their count, when the run ends (finish).
    } else {
      const line = humanLine(outcome, this.ctx.ui.paint);
      if (this.multibar && this.ctx.io.stdout.isTTY) this.logAbove(line);
      // Without bars, the count goes on the file's own line: one line per finished file.
      else if (this.multibar) this.ctx.io.stdout.write(`${line}\n`);
      else
        this.ctx.io.stdout.write(
          `[${this.finished.done}/${this.total}${this.finished.done < this.total ? this.left.text(this.clock.now(), ', ') : ''}] ${line}\n`,
        );
    }
    this.refresh();
  }

  /**
   * A line above the bars, broken to the terminal's width (a line that wraps by
   * itself is drawn over by the next redraw). Each row is erased first:
   * cli-progress writes logged lines over the rows the bars held, and clears
   * only the first.
   */
  private logAbove(text: string): void {
    for (const line of wrapToWidth(text, this.ctx.io.stderr.columns)) this.multibar?.log(`${ERASE_LINE}${line}\n`);
  }

  /**
   * Erase the bars, their last frame too, and give messages back to stderr: before the summary, and on a way out with
   * none (an error, a second Ctrl-C). Results logged above the bars stay. Safe to call again.
   */
  clear(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    // cli-progress prints logged lines on its next redraw; force one so the last results are not dropped.
    this.multibar?.update();
    this.multibar?.stop();
    this.multibar = undefined;
    this.overall = undefined;
    this.ctx.ui.drawingWith(undefined);
  }

  /** The closing summary, on stderr, once the bars are gone. */
  finish(report: { requests: number; credits: number; boundMs?: number }, startedAt: number): void {
    this.clear();
    if (!this.ctx.options.json)
      for (const line of notStartedLines(this.finished.notStartedFiles, this.ctx.ui.paint, this.ctx.options.verbose === true))
        this.ctx.io.stdout.write(`${line}\n`);
    this.ctx.ui.info(this.finished.summary(report, this.clock.now() - startedAt));
  }

  /** The end of a run that stopped without its report: the summary of what was shown; the bars only cleared when no document was (a run refused at its start: its error is all there is to say). */
  finishShown(startedAt: number): void {
    if (this.finished.done === 0) return this.clear();
    this.finish({ requests: this.requests, credits: this.credits }, startedAt);
  }

  private refresh(): void {
    if (!this.overall) return;
    const now = this.clock.now();
    // The bar line must not wrap: laid out by priority for the terminal's width, whole parts only.
    const waiting = this.waitUntil > now ? `next slot in ${formatDuration(this.waitUntil - now)}` : '';
    const parts = [
      { text: plural(this.finished.pages, 'page'), priority: 5 },
      { text: plural(this.credits, 'credit'), priority: 3 },
      { text: plural(this.requests, 'request'), priority: 6 },
      { text: this.left.text(now, ''), priority: 2 },
      { text: waiting && this.waitReason ? `${this.waitReason}; ${waiting}` : waiting, priority: 1 },
      // Nothing to wait for but answers: say so, so that a still line is never without its reason.
      { text: !waiting && this.awaiting > 0 ? `awaiting ${plural(this.awaiting, 'answer')}` : '', priority: 1 },
      {
        text:
          this.slotsHeldBy > 0
            ? `${this.slotsHeldBy} job slots held by others${this.slotsNextTry !== undefined && this.slotsNextTry > now ? `; next try in ${formatDuration(this.slotsNextTry - now)}` : ''}`
            : '',
        priority: 4,
      },
    ];
    const count = `${this.finished.done - this.finished.counts.interrupted}/${this.total}`;
    // The label, the bar, the count and the " · " before the parts; one column spare, so the line never touches the edge.
    const fixed = 'files    '.length + 1 + this.barWidth + 1 + count.length + 3;
    const room = (this.ctx.io.stderr.columns ?? 80) - fixed - 1;
    let info = fitParts(parts, room);
    // Too narrow for the reason and the time together: the time alone.
    if (waiting && !info.includes(waiting)) info = fitParts([{ text: waiting, priority: 1 }, ...parts.slice(0, 4)], room);
    // Files left open by Ctrl-C are not done: the bar does not claim 3/3 when two were interrupted.
    this.overall.update(this.finished.done - this.finished.counts.interrupted, { info: info ? `· ${info}` : '' });
  }
}

/** CSI 2K: the whole row, whatever column the cursor is at. */
const ERASE_LINE = '\u001b[2K';

function shorten(path: string): string {
  return path.length <= 28 ? path.padEnd(9) : `…${path.slice(-27)}`;
}

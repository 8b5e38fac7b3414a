import type { DocumentOutcome, DocumentStatus } from '../index.js';
import { describeProblem, type CheckProblem } from '../library/check.js';
import { neverStarted, OutcomeCounts } from '../library/outcomes.js';
import { pageRanges } from '../library/settings.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import { renderUntrusted } from '../util/untrusted-text.js';
import type { CliContext } from './context.js';
import { endsWithCommand } from './outcome-words.js';

/** What finished so far, for the closing summary of `extract`, `collect` and `watch`. */
export class FinishedTally {
  done = 0;
  pages = 0;
  private readonly counted = new OutcomeCounts();
  /** Files answered by a result already paid for, and what those results cost when they were made. */
  reused = 0;
  savedCredits = 0;
  /** Files a Ctrl-C ended before anything of them was sent (counted among `interrupted`), in the order they were told. */
  readonly notStartedFiles: string[] = [];

  add(outcome: DocumentOutcome): void {
    this.done += 1;
    this.pages += outcome.status === 'complete' || outcome.status === 'partial' ? (outcome.pages ?? 0) : 0;
    this.counted.add(outcome);
    if (neverStarted(outcome)) this.notStartedFiles.push(outcome.file);
    if (outcome.reused) {
      this.reused += 1;
      this.savedCredits += outcome.saved_credits ?? 0;
    }
  }

  /** How many documents finished with each status. */
  get counts(): Readonly<Record<DocumentStatus, number>> {
    return this.counted.byStatus;
  }

  /** Results that failed their checks (`--schema`). */
  get checksFailed(): number {
    return this.counted.checksFailed;
  }

  /** The closing line: statuses, pages, credits, requests, time (against the scheduler's bound for the requests sent, when it is more than nothing). */
  summary(report: { requests: number; credits: number; boundMs?: number }, elapsedMs: number): string {
    const c = this.counts;
    const parts = [`${c.complete} complete`, `${c.partial} partial`, `${c.failed} failed`];
    if (c.skipped) parts.push(`${c.skipped} skipped`);
    if (c.interrupted) parts.push(`${c.interrupted} interrupted`);
    if (this.checksFailed) parts.push(`${this.checksFailed} failed checks`);
    if (this.reused) parts.push(`${this.reused} reused (${plural(this.savedCredits, 'credit')} saved)`);
    // A bound of nothing bounds nothing: "no less than 0s" is not said.
    const bound =
      report.boundMs !== undefined && report.boundMs >= 1 && report.requests > 0
        ? ` (the rate limits allowed no less than ${formatDuration(report.boundMs)})`
        : '';
    return `${parts.join(', ')} · ${plural(this.pages, 'page')} · ${plural(report.credits, 'credit')} · ${plural(report.requests, 'request')} · ${formatDuration(elapsedMs)}${bound}`;
  }
}

/**
 * The one line for every file a Ctrl-C ended before anything of it was
 * sent: 48 lines saying "not started" each told nothing the count does not.
 * `--verbose` lists each file under it; each is its own line under --json,
 * as every outcome is.
 */
export function notStartedLines(files: readonly string[], paint: CliContext['ui']['paint'], verbose: boolean): string[] {
  const count = files.length;
  if (count === 0) return [];
  const them = count === 1 ? 'it' : 'them';
  const line = `${paint.red('interrupted')}  ${plural(count, 'file')} not started: nothing of ${them} was sent; run the same command again to take ${them}${verbose ? '' : ' (--verbose or --json lists each)'}`;
  // A file's name is untrusted text: rendered whole, so that its newline cannot make a line of its own.
  return verbose ? [line, ...files.map((file) => `  ${renderUntrusted(file)}`)] : [line];
}

/**
 * One finished file, for people; a result that failed its checks says why.
 * What follows each painted word is rendered whole (renderUntrusted): it
 * names the file and quotes the service, whose newline must not make a line.
 */
export function humanLine(outcome: DocumentOutcome, paint: CliContext['ui']['paint']): string {
  const line = statusLine(outcome, paint);
  return outcome.checks?.passed === false ? `${line}; ${paint.red('checks failed:')} ${checkProblemsText(outcome.checks.problems)}` : line;
}

/** The first few problems (`total must be number, invoice_number is required`), and how many more; rendered, for the field paths are the data's keys. */
export function checkProblemsText(problems: readonly CheckProblem[], shown = 3): string {
  const said = problems.slice(0, shown).map(describeProblem).join(', ');
  return renderUntrusted(problems.length > shown ? `${said} and ${problems.length - shown} more` : said);
}

function statusLine(outcome: DocumentOutcome, paint: CliContext['ui']['paint']): string {
  switch (outcome.status) {
    case 'complete':
      return `${paint.green('complete')}  ${renderUntrusted(`${outcome.file} -> ${outcome.output ?? ''} (${plural(outcome.pages, 'page')}${outcome.reused ? `; reused: ${outcome.reused}` : ''})`)}`;
    case 'partial':
      return `${paint.yellow('partial ')}  ${renderUntrusted(`${outcome.file} -> ${outcome.output ?? ''} (missing pages ${outcome.missing_pages ? pageRanges(outcome.missing_pages) : '?'})`)}`;
    default: {
      // After a command to paste, the code is a shell comment: the command pastes as printed.
      const code = endsWithCommand(outcome.error) ? `  # ${outcome.error?.code ?? ''}` : ` (${outcome.error?.code ?? ''})`;
      return `${paint.red(outcome.status.padEnd(8))}  ${renderUntrusted(`${outcome.file}: ${outcome.error?.message ?? ''}${code}`)}`;
    }
  }
}

export { plural } from '../util/plural.js';

/** "14:05" (local time; with seconds when it is under a minute away). */
export function clockTime(atMs: number, inMs: number): string {
  const at = new Date(atMs);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}${inMs < 60_000 ? `:${pad(at.getSeconds())}` : ''}`;
}

/** The scheduler's bound for what is left, counted down on the clock between its updates. */
export class TimeLeftCountdown {
  private told: { ms: number; at: number } | undefined;

  tell(boundMs: number, now: number): void {
    this.told = { ms: boundMs, at: now };
  }

  /** "4m 10s left" after `prefix`, or '' before any bound was told. */
  text(now: number, prefix: string): string {
    if (!this.told) return '';
    return `${prefix}${formatDuration(Math.max(0, this.told.ms - (now - this.told.at)))} left`;
  }
}

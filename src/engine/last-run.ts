import type { DocumentOutcome } from '../batch/batch-types.js';
import { OutcomeCounts } from '../batch/outcome-counts.js';
import { writeLastRunReport, type EarlierRunFiles, type LastRunReport } from '../store/last-run-report.js';

/** One finished run, as its report records it. */
export interface FinishedRun {
  /** Where it wrote its results, absolute: `docextract review` of that folder lists the files that got none. */
  outDir: string;
  outcomes: readonly DocumentOutcome[];
  /** Files per status when `outcomes` lists only those that did not complete (a RunTally's counts). @default counted from `outcomes` */
  counts?: Readonly<Record<string, number>>;
  startedAtMs: number;
  finishedAtMs: number;
  /** The command line that ran it, quoted to paste, and the folder it ran in (absent for a program's run). */
  command?: { line: string; cwd: string };
  /** What earlier runs left undone that this one did not finish (EarlierUndone.carried). */
  earlier?: EarlierRunFiles[];
}

/** The report of one run: counts per status, and every file that did not complete with why. */
export function lastRunReportFrom({ outDir, outcomes, counts: counted, startedAtMs, finishedAtMs, command, earlier }: FinishedRun): LastRunReport {
  const tally = new OutcomeCounts();
  const files: LastRunReport['files'] = [];
  for (const outcome of outcomes) {
    tally.add(outcome);
    if (outcome.status === 'complete') continue;
    files.push({
      file: outcome.file,
      ...(outcome.source ? { source: outcome.source } : {}),
      status: outcome.status,
      code: outcome.error?.code ?? null,
      message: outcome.error?.message ?? null,
      ...(outcome.missing_pages?.length ? { missing_pages: outcome.missing_pages } : {}),
      ...(jobOf(outcome) ? { job_id: jobOf(outcome) } : {}),
      ...(outcome.expires_at ? { expires_at: outcome.expires_at } : {}),
    });
  }
  return {
    started_at: new Date(startedAtMs).toISOString(),
    finished_at: new Date(finishedAtMs).toISOString(),
    out_dir: outDir,
    ...(command === undefined ? {} : { command: command.line, cwd: command.cwd }),
    counts: counted ? { ...counted } : { ...tally.byStatus },
    files,
    ...(earlier?.length ? { earlier } : {}),
  };
}

/**
 * The job a file's outcome left open: its own, or, for a source in parts, the open job of a part (the
 * source has no job of its own; its error names its part's). Without it `jobs` read such a source as
 * never started, "nothing of it was sent", though its parts were paid for.
 */
function jobOf(outcome: DocumentOutcome): string | null {
  const details = outcome.error?.details;
  return outcome.job_id ?? (details?.kind === 'job_open' ? details.job_id : null);
}

/**
 * Save the run's report for `docextract jobs` and `docextract review`. Best effort: the results are
 * already safe on disk, and a report we cannot write is no reason to fail the
 * run; it returns whether it was written.
 */
export async function recordLastRun(stateDir: string, account: string, run: FinishedRun): Promise<boolean> {
  try {
    await writeLastRunReport(stateDir, account, lastRunReportFrom(run));
    return true;
  } catch {
    return false;
  }
}

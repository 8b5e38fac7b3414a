import { stat } from 'node:fs/promises';
import type { DocumentOutcome } from '../batch/batch-types.js';
import { readLastRunReports, type EarlierRunFiles, type LastRunFile, type LastRunReport } from '../store/last-run-report.js';

/** A file as the records know it: its absolute path (a file without one, an argument that named none, is never carried). */
function sourceOf(file: { source?: string | undefined }): string | undefined {
  return typeof file.source === 'string' ? file.source : undefined;
}

/** Every run a report lists files for: the run itself first, then the earlier runs it carried. */
export function runsOf(report: LastRunReport): EarlierRunFiles[] {
  const own: EarlierRunFiles = {
    finished_at: report.finished_at,
    ...(report.out_dir === undefined ? {} : { out_dir: report.out_dir }),
    ...(report.command === undefined ? {} : { command: report.command }),
    ...(report.cwd === undefined ? {} : { cwd: report.cwd }),
    files: report.files,
  };
  return [own, ...(Array.isArray(report.earlier) ? report.earlier : [])];
}

/**
 * What earlier runs left undone, kept while a run goes on so that its
 * report can carry what it did not finish: the report a run writes replaces
 * the account's last one, and the files a Ctrl-C left unstarted must not go
 * with it. Only the sources those reports list are watched (a few, not the
 * run's 100,000 complete files); a complete outcome met before they are read
 * waits in a list, read at once.
 */
export class EarlierUndone {
  private watched: Set<string> | undefined;
  private readonly seenBeforeRead: string[] = [];
  private readonly completed = new Set<string>();
  private readonly read: Promise<void>;

  constructor(private readonly stateDir: string) {
    this.read = readLastRunReports(stateDir)
      .catch(() => [])
      .then((reports) => {
        this.watched = new Set(reports.flatMap((report) => runsOf(report).flatMap((run) => run.files.flatMap((file) => sourceOf(file) ?? []))));
        for (const source of this.seenBeforeRead.splice(0)) this.note(source);
      });
  }

  /** A document this run completed (`path`: its file, absolute): an earlier run's file no longer undone. */
  complete(path: string | undefined): void {
    const source = path;
    if (source === undefined) return;
    if (this.watched === undefined) this.seenBeforeRead.push(source);
    else this.note(source);
  }

  /**
   * The runs `account`'s last report and the runs it carried, each with the
   * files this run did not finish (`finishedUndone`, its files not
   * complete, and those it completed) and whose source still exists; the
   * latest run first, runs left with no file dropped.
   */
  async carried(account: string, finishedUndone: readonly DocumentOutcome[]): Promise<EarlierRunFiles[]> {
    await this.read;
    const [previous] = await readLastRunReports(this.stateDir, account).catch(() => []);
    if (!previous) return [];
    const taken = new Set(this.completed);
    for (const outcome of finishedUndone) {
      const source = sourceOf(outcome);
      if (source !== undefined) taken.add(source);
    }
    const runs: EarlierRunFiles[] = [];
    for (const run of runsOf(previous)) {
      const files: LastRunFile[] = [];
      for (const file of run.files) {
        const source = sourceOf(file);
        if (source === undefined || taken.has(source) || !(await stillThere(source))) continue;
        taken.add(source); // listed once, as the latest run left it
        files.push(file);
      }
      if (files.length > 0) runs.push({ ...run, files });
    }
    return runs;
  }

  private note(source: string): void {
    if (this.watched?.has(source)) this.completed.add(source);
  }
}

/** A source deleted or moved since can never be finished under its name: it is not listed again. */
async function stillThere(source: string): Promise<boolean> {
  return stat(source).then(
    (info) => info.isFile(),
    () => false,
  );
}

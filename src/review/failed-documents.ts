import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readLastRunReports } from '../store/last-run-report.js';

/** How a document without a result ended in its run. */
export type FailedStatus = 'failed' | 'skipped' | 'interrupted';

/** A file that a run writing to the reviewed folder did not extract, as its last-run report tells it. */
export interface FailedDocument {
  /** The document's id on the page: `failed:` and a digest of its file, never a path. */
  id: string;
  /** The file's absolute path; undefined when the run knew none (an argument that named no file). */
  source: string | undefined;
  /** As the run showed it. */
  file: string;
  status: FailedStatus;
  code: string | null;
  message: string | null;
  /** When the run that reported it finished (UTC ISO). */
  finished_at: string;
}

const FAILED: ReadonlySet<string> = new Set<FailedStatus>(['failed', 'skipped', 'interrupted']);
const ID_PREFIX = 'failed:';

export function isFailedId(id: string): boolean {
  return id.startsWith(ID_PREFIX);
}

/**
 * The files the last run of each account (read from the state folder, as
 * `docextract jobs` reads it), or an earlier run its report carries, wrote
 * no result for, when that run wrote to
 * `resultsDir`; a file with a result there now (`hasResult`, by its absolute
 * path) is left out. The same file reported by two accounts' runs is listed
 * once, as the later run left it.
 */
export async function failedDocuments(stateDir: string, resultsDir: string, hasResult: (source: string) => boolean): Promise<FailedDocument[]> {
  const folder = await canonical(resultsDir);
  const byId = new Map<string, FailedDocument>();
  const runs = (await readLastRunReports(stateDir)).flatMap((report) => [report, ...(Array.isArray(report.earlier) ? report.earlier : [])]);
  for (const report of runs) {
    if (typeof report.out_dir !== 'string' || (await canonical(report.out_dir)) !== folder) continue;
    for (const entry of report.files) {
      if (!FAILED.has(entry.status)) continue;
      const source = typeof entry.source === 'string' ? entry.source : undefined;
      if (source !== undefined && hasResult(source)) continue;
      const id = `${ID_PREFIX}${createHash('sha256')
        .update(source ?? `file:${entry.file}`)
        .digest('hex')
        .slice(0, 20)}`;
      const earlier = byId.get(id);
      if (earlier && earlier.finished_at >= report.finished_at) continue;
      byId.set(id, {
        id,
        source,
        file: entry.file,
        status: entry.status as FailedStatus,
        code: entry.code,
        message: entry.message,
        finished_at: report.finished_at,
      });
    }
  }
  return [...byId.values()];
}

/** The source of a listed failed document when it is still a file: the only way the page reaches it. */
export async function failedSourceFile(document: FailedDocument): Promise<string | undefined> {
  if (document.source === undefined) return undefined;
  const info = await stat(document.source).catch(() => undefined);
  return info?.isFile() ? document.source : undefined;
}

/** A folder named two ways (a symbolic link, a trailing slash) is the same folder. */
async function canonical(path: string): Promise<string> {
  const absolute = resolve(path);
  return realpath(absolute).catch(() => absolute);
}

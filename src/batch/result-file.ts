import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative } from 'node:path';

/** The result file mirrors the input's path below the inputs' common base, so a/x.pdf and b/x.pdf never collide. */
export function outputPathFor(outDir: string, commonBase: string, inputPath: string): string {
  const rel = relative(commonBase, inputPath);
  const safe = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : basename(inputPath);
  return join(outDir, `${safe}.json`);
}

export type ResultStatus = 'complete' | 'partial';

/** Everything a result file holds: the stitched data and where it came from. */
export interface ResultDocument {
  status: ResultStatus;
  source: { path: string; sha256: string; size: number; type: string; pages: number | null };
  model: string | null;
  pages: { total: number | null; processed: number | null; missing: number[] };
  job: { parent_job_id: string; chunk_job_ids: string[]; expires_at: string } | null;
  extraction_id: string | null;
  warnings: string[];
  credits: number;
  started_at: string;
  completed_at: string;
  generator: string;
  data: unknown;
}

/**
 * Read back the sha256 and status of an existing result, so that a re-run
 * spends nothing on work already on disk. Anything unreadable counts as absent.
 */
export async function readExistingResult(path: string): Promise<{ sha256: string; status: ResultStatus } | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<ResultDocument>;
    const sha256 = parsed.source?.sha256;
    if (typeof sha256 !== 'string' || (parsed.status !== 'complete' && parsed.status !== 'partial')) return undefined;
    return { sha256, status: parsed.status };
  } catch {
    return undefined;
  }
}

export function serializeResult(result: ResultDocument): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

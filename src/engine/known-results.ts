import { join, resolve } from 'node:path';
import fg from 'fast-glob';
import { pagesKey, samePages, type Question } from '../batch/question.js';
import { readExistingResult } from '../batch/result-file.js';
import { ResultsIndex } from '../store/results-index.js';
import { judgeResultOnDisk, type ReuseOptions } from './reuse.js';

/** Result files read at once while rebuilding: enough to hide disk latency, few enough for small machines. */
const REBUILD_READS = 16;

/**
 * Results by question across runs, so that a file moved or renamed since it
 * was extracted reuses its answer instead of paying for it again. Keyed by
 * content and model (a stored result answers an unstored question too, and
 * judgeResultOnDisk decides that); every hit is checked against the result
 * file itself, so a result the user deleted or replaced is never reused.
 */
export class KnownResults {
  constructor(
    private readonly index: ResultsIndex,
    /** Look, never write (for --dry-run, which changes nothing). */
    private readonly readOnly = false,
  ) {}

  /** The index of this state folder and key, only to look things up in. */
  static async peek(stateDir: string, account: string): Promise<KnownResults> {
    return new KnownResults(await ResultsIndex.open(resultsIndexPath(stateDir, account)), true);
  }

  /**
   * Read the results already under `outDir` into the index if it has never
   * seen that folder (the index is new, was deleted, or the folder is):
   * results written before the index existed, or by a run that crashed
   * before it could say so, count too.
   */
  async scan(outDir: string): Promise<number> {
    const folder = resolve(outDir);
    if (this.readOnly || this.index.hasScanned(folder)) return 0;
    let found = 0;
    const paths = fg.stream('**/*.json', { cwd: folder, absolute: true, dot: false, onlyFiles: true, suppressErrors: true });
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      const read = await Promise.all(batch.map(async (path) => ({ path, existing: await readExistingResult(path) })));
      batch = [];
      for (const { path, existing } of read) {
        if (existing?.status !== 'complete') continue;
        await this.index.set(keyOf(existing.question), path);
        found += 1;
      }
    };
    for await (const path of paths) {
      batch.push(String(path));
      if (batch.length >= REBUILD_READS) await flush();
    }
    await flush();
    await this.index.markScanned(folder);
    return found;
  }

  /** A result file elsewhere that answers `asked`, if the index knows one and it still does. */
  async answerFor(asked: Question, options: ReuseOptions): Promise<string | undefined> {
    if (options.force) return undefined;
    const key = keyOf(asked);
    const path = await this.index.get(key);
    if (path === undefined) return undefined;
    const existing = await readExistingResult(path);
    if (judgeResultOnDisk(existing, asked, options).reuse) return path;
    // Deleted, replaced or partial: forget it, unless it is only unstored where a stored one is asked.
    if (this.readOnly) return undefined;
    if (
      !existing ||
      existing.question.sha256 !== asked.sha256 ||
      existing.question.model !== asked.model ||
      !samePages(existing.question.pages, asked.pages) ||
      existing.status !== 'complete'
    )
      await this.index.forget(key);
    return undefined;
  }

  /** A complete result for `asked` is durable at `output`. */
  async record(asked: Question, output: string): Promise<void> {
    if (this.readOnly) return;
    await this.index.set(keyOf(asked), resolve(output));
  }

  async close(): Promise<void> {
    if (this.readOnly) return;
    await this.index.compact();
    await this.index.removeIfNoResult();
  }
}

/** Where the index of one key (account) lives in the state folder. */
export function resultsIndexPath(stateDir: string, account: string): string {
  return join(stateDir, `results-${account}.ndjson`);
}

function keyOf(question: Question): string {
  return `${question.sha256} ${question.model}${pagesKey(question.pages)}`;
}

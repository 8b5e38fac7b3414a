import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { readResultFile, type ResultDocument } from '../batch/result-file.js';
import { isResultDocument } from '../checks/recheck.js';
import { isReviewSidecar } from '../store/result-names.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';

/** A result file found by the path a page asked for. */
export interface FoundResult {
  /** Absolute path of the result file. */
  path: string;
  /** As asked: relative to the results folder, with `/`. */
  id: string;
  result: ResultDocument;
}

/**
 * The results folder as the review page may see it: a result is asked for by
 * its path relative to the folder, and anything that leads outside it (`..`,
 * an absolute path, a symbolic link out) or is not a result is not there.
 */
export class ResultsFolder {
  private constructor(
    readonly root: string,
    private readonly realRoot: string,
    /** Where a relative source path recorded in a result is taken from. */
    readonly cwd: string,
    /** How the page names the folder when it is a copy of another (an `s3://` prefix). */
    private readonly named?: string,
    /** How a review is saved below it: a copy of an `s3://` prefix puts it in the bucket first. */
    readonly write: ResultWriter = writeFileAtomically,
  ) {}

  static async open(root: string, cwd: string, copyOf?: { named: string; write: ResultWriter }): Promise<ResultsFolder | undefined> {
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) return undefined;
    return new ResultsFolder(root, await realpath(root), cwd, copyOf?.named, copyOf?.write);
  }

  /** The file below the folder at `id`, or undefined when it is outside, missing or not a file. */
  async fileAt(id: string): Promise<string | undefined> {
    if (id === '' || id.includes('\0') || isAbsolute(id) || id.split(/[\\/]/).includes('..')) return undefined;
    const real = await realpath(resolve(this.root, id)).catch(() => undefined);
    if (!real || !real.startsWith(`${this.realRoot}${sep}`)) return undefined;
    const info = await stat(real).catch(() => undefined);
    return info?.isFile() ? real : undefined;
  }

  /** The result file at `id`, read; undefined for anything else (a review file is not a result, nor is a file that is not the user's own). */
  async resultAt(id: string): Promise<FoundResult | undefined> {
    if (!id.endsWith('.json') || isReviewSidecar(id)) return undefined;
    const path = await this.fileAt(id);
    if (!path) return undefined;
    const parsed: unknown = await readResultFile(path);
    return isResultDocument(parsed) ? { path, id, result: parsed } : undefined;
  }

  /** The folder as a person names it: relative to where docextract runs when inside it. */
  get shownAs(): string {
    if (this.named !== undefined) return this.named;
    const inside = relative(this.cwd, this.root);
    return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? this.root : inside;
  }

  idOf(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }
}

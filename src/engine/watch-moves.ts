import { constants } from 'node:fs';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import type { DocumentOutcome } from '../batch/batch-types.js';
import { readResultFile, writeResult, type ResultDocument } from '../batch/result-file.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { MoveUnsafeError } from './move-unsafe-error.js';
import type { MoveRefusal, WatchEvents } from './watch-types.js';
import { movesFolderProblem, refuseSwappable } from './move-folder-safety.js';

export interface MoveTargets {
  /** The watched folder: sources keep their path below it. */
  root: string;
  /** Where sources go once their complete result is durable (`--move-done`). @default undefined: they stay */
  done?: string;
  /** Where sources go once their failure is final, or their result partial (`--move-failed`). @default undefined: they stay */
  failed?: string;
}

/**
 * Failures that sending the same file again would not change: the file
 * itself is refused, or the service could not read it (and charged it).
 * Anything else (rate limits, credits, a full disk, the network, an
 * interruption) leaves the source in place, to be taken again on the next start.
 */
const FINAL_FAILURES = new Set(['invalid_file_type', 'invalid_file', 'file_too_large', 'page_limit_exceeded', 'extraction_failed']);

/** Which folder a finished document's source belongs in, if any. */
export function moveKind(outcome: DocumentOutcome): 'done' | 'failed' | undefined {
  if (outcome.status === 'complete') return 'done';
  if (outcome.status === 'partial') return 'failed';
  if (outcome.status === 'failed' && outcome.error && FINAL_FAILURES.has(outcome.error.code)) return 'failed';
  return undefined;
}

/**
 * Moves sources out of the watched folder, mirroring their path below it,
 * once they are finished for good. The runner reports a document finished
 * only after its result file is durable, so a move never comes first; a crash
 * between the write and the move leaves the source in the inbox, and the next
 * start finds its result on disk (reused, free) and moves it then. Moves run
 * one after another: renames are quick, and the order stays the finishing order.
 */
export class WatchMoves {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly targets: MoveTargets,
    /** The result folder (`--out`): a result is rewritten only below it, never through a link in it. */
    private readonly results: string,
    /** Where a move that failed or was refused is said. */
    private readonly events: Pick<WatchEvents, 'notice' | 'notMoved'>,
    /** Test-only: awaited between a move's checks and its rename, so a test can swap a folder at that exact point. @default none */
    private readonly beforeRename?: BeforeRename,
  ) {}

  /** Queue the move of `source` for this outcome, when one applies. */
  finished(outcome: DocumentOutcome, source: string): void {
    const kind = moveKind(outcome);
    const folder = kind === 'done' ? this.targets.done : kind === 'failed' ? this.targets.failed : undefined;
    if (folder === undefined) return;
    this.chain = this.chain.then(async () => {
      let target: string;
      try {
        target = await moveMirrored(source, this.targets.root, folder, this.beforeRename);
      } catch (error) {
        if (error instanceof MoveUnsafeError) this.refused(outcome.file, folder, error);
        else this.notice(`${outcome.file}: could not move it to ${folder} (${(error as NodeJS.ErrnoException).code ?? String(error)}); it stays where it is`);
        return;
      }
      if (outcome.output) await this.pointResultAt(outcome.output, source, target, outcome.file);
    });
  }

  private notice(message: string): void {
    this.events.notice?.(message);
  }

  private refused(file: string, to: string, error: MoveUnsafeError): void {
    const message = `${file}: not moved to ${to}: ${error.message}; it stays where it is`;
    const refusal: MoveRefusal = { file, to, code: error.code, folder: error.folder, reason: error.reason, message };
    if (this.events.notMoved) this.events.notMoved(refusal);
    else this.notice(message);
  }

  /**
   * The result names its source by path (`review` shows it, `check` reads
   * it): once the source is moved, the result names where it went. After the
   * move, not before: a move that fails leaves the result true. A crash
   * between the two leaves the old path (the source is then "gone").
   */
  private async pointResultAt(output: string, from: string, to: string, file: string): Promise<void> {
    try {
      const result = await readResultFile(output);
      if (!result?.source || resolve(result.source.path) !== resolve(from)) return;
      await writeResult(output, { ...(result as ResultDocument), source: { ...result.source, path: resolve(to) } }, writeFileAtomically, this.results);
    } catch (error) {
      this.notice(
        `${file}: moved to ${to}, but its result ${output} could not be updated to say so (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
  }

  /** Resolves once every queued move is done. */
  drain(): Promise<void> {
    return this.chain;
  }
}

/** Test-only: a step between a move's checks and its rename. */
export type BeforeRename = (source: string, target: string) => Promise<void>;

/**
 * Moves `source` to the same relative path below `folder`, never over an
 * existing file; returns where it went. A rename by path goes wherever the
 * folders on its way lead when it runs, so both ways (to the source's folder,
 * to the target's, made here one at a time) are first checked to be
 * unswappable by anyone but this user and root (store/folder-chain.ts): then
 * nobody else can change them between the check and the rename. One that
 * could be swapped throws {@link MoveUnsafeError} and nothing moves.
 */
export async function moveMirrored(source: string, root: string, folder: string, beforeRename?: BeforeRename): Promise<string> {
  const mirrored = join(folder, relative(root, source));
  refuseSwappable(await movesFolderProblem(dirname(source)), source);
  refuseSwappable(await movesFolderProblem(dirname(mirrored), true), mirrored);
  const target = await freeName(mirrored);
  await beforeRename?.(source, target);
  try {
    await rename(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system: rename cannot cross it. Copy (refusing to overwrite), then remove.
    await copyNotFollowing(source, target);
    await unlink(source);
  }
  return target;
}

/** Copies `source` to a new `target`, reading `source` only when it is a regular file (a link swapped in is not followed), keeping its permission bits. */
async function copyNotFollowing(source: string, target: string): Promise<void> {
  const input = await open(source, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stats = await input.stat();
    if (!stats.isFile()) throw Object.assign(new Error(`${source} is not a regular file`), { code: 'EINVAL' });
    const output = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), stats.mode & 0o777);
    try {
      const buffer = Buffer.allocUnsafe(1 << 16);
      for (let read = await input.read(buffer, 0, buffer.length, null); read.bytesRead > 0; read = await input.read(buffer, 0, buffer.length, null)) {
        await output.write(buffer, 0, read.bytesRead);
      }
      await output.sync();
    } catch (error) {
      await unlink(target).catch(() => undefined); // no half copy left beside a source that stays
      throw error;
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/** `path`, or `name (2).ext`, `name (3).ext`... : the first that does not exist. */
async function freeName(path: string): Promise<string> {
  const extension = extname(path);
  const stem = path.slice(0, path.length - extension.length);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${stem} (${n})${extension}`;
    if (!(await exists(candidate))) return candidate;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

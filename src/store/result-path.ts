/**
 * Where a result may be written. A result's name and the folders above it
 * come from the source's path, which whoever dropped the file chose: a
 * folder already sitting at the result's name, a link below the output
 * folder, a name past the file system's limit. Each is one file's problem,
 * and is found before anything is paid for ({@link resultPathProblem}); the
 * folders a result needs are made without following a link out of the
 * output folder ({@link makeResultFolders}).
 */
import { lstat, mkdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { hasErrorCode } from './fs-errors.js';

/** The longest file name, in bytes, that Linux, macOS and Windows file systems create (NAME_MAX). */
export const NAME_MAX_BYTES = 255;

/** `result_path_unusable`: a folder, a link or a file sits where the result or its folders go; `file_name_too_long`: the result's name is past NAME_MAX. */
export type ResultPathCode = 'result_path_unusable' | 'file_name_too_long';

/** A result that cannot be written where it must go, for a reason of that one path (not of the output folder). */
export class ResultPathError extends Error {
  constructor(
    readonly code: ResultPathCode,
    /** The result path that cannot be written. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'ResultPathError';
  }
}

/**
 * Why `path` cannot take a result (undefined when it can, as far as can be
 * told without writing): its name is too long, or something below `root`
 * on the way to it is a link, a file where a folder goes, or a folder (or
 * anything but a file) at the result's own name. `root` itself, the output
 * folder the user chose, may be a link. Costs a few lstat calls.
 */
export async function resultPathProblem(root: string, path: string): Promise<ResultPathError | undefined> {
  const name = basename(path);
  const bytes = Buffer.byteLength(name);
  if (bytes > NAME_MAX_BYTES) {
    return new ResultPathError(
      'file_name_too_long',
      path,
      `the result's file name is ${bytes} bytes long, past the ${NAME_MAX_BYTES} a file name may have; rename the source to a shorter name`,
    );
  }
  const steps = stepsBelow(root, path);
  for (const [index, step] of steps.entries()) {
    const found = await lstatIfAny(step, path);
    if (found instanceof ResultPathError) return found;
    // Nothing there yet: it is made when the result is written.
    if (!found) return undefined;
    const problem = problemOf(found, step, path, index === steps.length - 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Make the folders below `root` that `path` needs, one at a time, never
 * following a link: a link or a file on the way is the path's
 * ResultPathError. (mkdir -p follows links, which would let a folder link in
 * the output folder send results elsewhere.) `root` is made as it is named.
 * A link swapped in between this check and the write is not caught: Node has
 * no openat; the window is this call's own few microseconds.
 */
export async function makeResultFolders(root: string, path: string): Promise<void> {
  await mkdir(root, { recursive: true });
  const folders = stepsBelow(root, path).slice(0, -1);
  for (const folder of folders) {
    try {
      await mkdir(folder);
      continue;
    } catch (error) {
      if (!hasErrorCode(error, 'EEXIST')) throw error;
    }
    // mkdir never follows a link at the name it makes: EEXIST says something is there, lstat says what.
    const problem = problemOf(await lstat(folder), folder, path, false);
    if (problem) throw problem;
  }
}

/** Every path from just below `root` down to `path`; just `path` when it is not below `root`. */
function stepsBelow(root: string, path: string): string[] {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return [path];
  const names = rel.split(sep);
  return names.map((_, index) => join(root, ...names.slice(0, index + 1)));
}

async function lstatIfAny(step: string, path: string): Promise<Stats | ResultPathError | undefined> {
  try {
    return await lstat(step);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    return unusable(path, `${step} cannot be looked at (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function problemOf(found: Stats, step: string, path: string, last: boolean): ResultPathError | undefined {
  if (found.isSymbolicLink()) return unusable(path, `${step} is a link; results are never written through links`);
  if (!last && !found.isDirectory()) return unusable(path, `${step} is not a folder`);
  if (last && !found.isFile()) return unusable(path, `${step} is ${found.isDirectory() ? 'a folder' : 'not a regular file'}`);
  return undefined;
}

function unusable(path: string, why: string): ResultPathError {
  return new ResultPathError('result_path_unusable', path, `cannot write the result ${path}: ${why}; move it away and run again`);
}

import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import fg from 'fast-glob';
import { globLeavesItsBase } from './glob-reach.js';
import { isObjectUri } from '../util/object-uri.js';
import { objectInsideRoots, objectRootOf } from '../util/object-scope.js';

/**
 * The real path of `path` (symbolic links resolved), also for a path that
 * does not exist yet: its nearest existing folder's real path plus the rest.
 * A link inside an allowed folder that points elsewhere is compared by where
 * it points, so it cannot lead a run out of the folder.
 */
export async function realPathOf(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(await realPathOf(parent), basename(absolute));
  }
}

/** `path` is `folder` or below it (both absolute and real). */
export function isInsideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * What an argument reaches before anything is listed: the path itself, or
 * for a glob the folder its pattern starts in (`in/**\/*.pdf` → `in`).
 */
export function searchedFrom(arg: string, cwd: string): string {
  const path = resolve(cwd, arg);
  if (!fg.isDynamicPattern(arg)) return path;
  const segments = path.split(sep);
  const firstDynamic = segments.findIndex((segment) => segment !== '' && fg.isDynamicPattern(segment));
  return firstDynamic <= 0 ? path : segments.slice(0, firstDynamic).join(sep) || sep;
}

/**
 * Why an argument cannot be proved to stay inside the folder `searchedFrom`
 * gives for it (a glob whose braces, `..` or extglob may lead elsewhere), or
 * undefined: a glob refused here is refused before any walk.
 */
export function argumentReachesPast(arg: string): string | undefined {
  return fg.isDynamicPattern(arg) ? globLeavesItsBase(arg) : undefined;
}

/** Folders a run may touch, by real path, and `s3://` roots; `allows` answers for any path, existing or not. */
export class AllowedFolders {
  private constructor(
    /** The allowed folders' real paths (absolute, links resolved), in the order given. */
    readonly folders: readonly string[],
    /** The allowed `s3://` roots, each a folder (`s3://b/p/`); none: no object is listed or read. */
    readonly objectRoots: readonly string[] = [],
  ) {}

  /** `folders` as given (relative to `cwd`), each resolved to its real path; an `s3://` address among them is an object root. */
  static async of(folders: readonly string[], cwd: string): Promise<AllowedFolders> {
    const local = folders.filter((folder) => !isObjectUri(folder));
    return new AllowedFolders(await Promise.all(local.map((folder) => realPathOf(resolve(cwd, folder)))), folders.filter(isObjectUri).map(objectRootOf));
  }

  /** Everything an `s3://` argument (object, folder or glob) can list or read lies under an allowed root. */
  allowsObject(uri: string): boolean {
    return objectInsideRoots(uri, this.objectRoots);
  }

  /** A real path (already resolved) inside one of the folders. */
  contains(realPath: string): boolean {
    return this.folders.some((folder) => isInsideFolder(folder, realPath));
  }

  /** `path` resolves (links followed) to a place inside one of the folders. */
  async allows(path: string): Promise<boolean> {
    return this.contains(await realPathOf(path));
  }
}

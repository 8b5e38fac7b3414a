import type { Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import fg from 'fast-glob';
import { entryKind, errorCode, takeIfSupported, walkFolder, type SearchFindings } from './folder-walk.js';
import { argumentReachesPast, searchedFrom, type AllowedFolders } from './allowed-folders.js';
import { FoundInputs, OBJECTS_IN_MEMORY, type DiscoveredInput } from './found-inputs.js';
import { CommonFolder, comparePaths } from './paths.js';
import { toDisplayPath } from '../util/display-path.js';
import { TakenFiles } from './taken-files.js';
import { notUtf8Message, notUtf8PathOf, shownAs } from './raw-names.js';
import { isObjectUri } from '../util/object-uri.js';
import { objectAddressOf } from '../storage/spool-layout.js';
import type { ListedVersion, ObjectInputOptions, ObjectInputs } from '../storage/object-inputs.js';

export type { DiscoveredInput } from './found-inputs.js';

interface DiscoveryProblem {
  /** The argument as given. */
  arg: string;
  code: 'file_not_found' | 'no_match' | 'unreadable' | 'path_not_allowed' | 'name_not_utf8';
  message: string;
}

/**
 * A file that was found but not taken. Reasons: an unsupported extension
 * inside a folder or glob, a hidden file or folder, a symbolic link to a
 * folder or a broken one, an unreadable subfolder, or a second path to a file
 * already taken (a symbolic link, say; the same path reached twice is not
 * reported).
 */
interface SkippedFile {
  path: string;
  reason: string;
}

export interface DiscoveryResult {
  /** In order; a large batch's paths are on disk until read (see FoundInputs). */
  inputs: FoundInputs;
  /** The store `s3://` arguments were listed from, still open: the planner reads each object through it (`read`), then closes it. */
  objects?: ObjectInputs;
  skipped: SkippedFile[];
  problems: DiscoveryProblem[];
  /** The deepest folder containing every input (cwd when there are none): outputs mirror paths below it, so `a/x.pdf` and `b/x.pdf` never collide. */
  commonBase: string;
}

export interface DiscoveryOptions {
  /** Folder that relative arguments and globs are resolved against. @default process.cwd() */
  cwd?: string;
  /**
   * Paths taken after `args`, exactly as named and never expanded as globs
   * (from `--files-from`: a file named `a*b.pdf` is that file, and a missing
   * one is reported, not matched). @default []
   */
  literal?: readonly string[];
  /**
   * Absolute folders never searched by a folder or a glob: the output and
   * state folders, so that `extract .` does not find its own results (and
   * report each as "not a PDF") on every run. A file named outright is
   * still taken. @default []
   */
  exclude?: readonly string[];
  /**
   * Only these folders may be read: an argument outside them is refused
   * (`path_not_allowed`) before it is listed, and a file found inside them
   * whose real path is elsewhere (a symbolic link out) is refused unread.
   * @default anywhere
   */
  allowed?: AllowedFolders;
  /**
   * Where `s3://` arguments are read from and spooled (the AWS SDK is loaded
   * only when one appears). Without it, such an argument is refused.
   * @default none
   */
  objects?: ObjectInputOptions;
}

/**
 * Turns command-line arguments (files, folders, globs) into the list of
 * files to process. An argument that exists as a path is taken literally,
 * even when it looks like a glob (`brackets [1].pdf`); only one that does not
 * exist and that fast-glob calls dynamic is expanded, so a quoted glob such as
 * `'./in/**\/*.pdf'` works in shells without globstar. Order: arguments in
 * the order given, and each folder's or glob's files sorted. A file reached
 * twice (same real path) is taken once.
 */
export async function discoverInputs(args: string[], options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const spoolDir = options.objects?.spoolDir;
  const inputs = spoolDir === undefined ? new FoundInputs(cwd) : new FoundInputs(cwd, OBJECTS_IN_MEMORY, (path) => objectAddressOf(spoolDir, path));
  let objects: ObjectInputs | undefined;
  const result: DiscoveryResult = { inputs, skipped: [], problems: [], commonBase: cwd };
  // An object's spool path is its own: it may not be downloaded yet, and no link leads there.
  const taken = new TakenFiles(async (index) => {
    const input = inputs.at(index);
    return input.object ? input.path : realpath(input.path).catch(() => input.path);
  });
  const common = new CommonFolder();

  const take = async (path: string, via: DiscoveredInput['via'], knownReal?: string, object?: ListedVersion): Promise<void> => {
    const real = knownReal ?? (await realpath(path).catch(() => path));
    if (options.allowed && !options.allowed.contains(real)) {
      result.problems.push({ arg: toDisplayPath(path, cwd), code: 'path_not_allowed', message: NOT_ALLOWED });
      return;
    }
    await admit(path, via, real, object);
  };
  /** A file taken once (by real path); an object's spool copy is admitted without the folders' check, its address was checked against the roots. */
  const admit = async (path: string, via: DiscoveredInput['via'], real: string, object?: ListedVersion): Promise<void> => {
    const first = await taken.firstOf(real);
    if (first !== undefined) {
      const firstShown = inputs.at(first).displayPath;
      if (firstShown !== toDisplayPath(path, cwd)) result.skipped.push({ path, reason: `same file as ${firstShown}` });
      return;
    }
    taken.add(real, inputs.push({ path, via, ...(object ? { object } : {}) }));
    common.add(path);
  };
  const exclude = options.exclude ?? [];
  const excluded = (path: string): boolean => exclude.some((folder) => path === folder || path.startsWith(`${folder}${sep}`));
  /** What a search reports, taken as it comes; `reported` counts it, so that a glob that matched nothing can say so. */
  const searchFindings = (via: 'folder' | 'glob'): SearchFindings & { reported: number } => {
    const findings = {
      reported: 0,
      file: async (path: string, real?: string): Promise<void> => {
        findings.reported += 1;
        if (!excluded(path)) await take(path, via, real);
      },
      skip: (path: string, reason: string): void => {
        findings.reported += 1;
        if (!excluded(path)) result.skipped.push({ path, reason });
      },
    };
    return findings;
  };

  const visit = async (arg: string, mayGlob: boolean): Promise<void> => {
    const problem = (code: DiscoveryProblem['code'], message: string): void => void result.problems.push({ arg, code, message });
    if (arg === '') {
      problem('file_not_found', 'An empty argument names no file.');
      return;
    }
    if (isObjectUri(arg)) {
      // Where folders are confined (MCP), only what lies under an allowed s3:// root is listed or read.
      if (!options.objects) problem('path_not_allowed', 's3:// inputs are not read here.');
      else if (options.allowed && !options.allowed.allowsObject(arg)) problem('path_not_allowed', NOT_ALLOWED);
      else
        await (objects ??= await objectInputs(options.objects)).visit(arg, mayGlob, {
          file: (path, via, listed) => admit(path, via, path, listed),
          skip: (uri, reason) => void result.skipped.push({ path: uri, reason }),
          problem,
        });
      return;
    }
    const path = resolve(cwd, arg);
    // A glob whose braces or `..` may walk past its base is refused before any walk: its base proves nothing.
    const reaches = options.allowed && mayGlob ? argumentReachesPast(arg) : undefined;
    if (reaches !== undefined) {
      problem('path_not_allowed', `${reaches}; nothing was searched.`);
      return;
    }
    if (options.allowed && !(await options.allowed.allows(mayGlob ? searchedFrom(arg, cwd) : path))) {
      problem('path_not_allowed', NOT_ALLOWED);
      return;
    }
    const found = await statLiteral(path);
    if (found.kind === 'file') {
      await take(path, 'file');
    } else if (found.kind === 'folder') {
      try {
        await walkFolder(path, searchFindings('folder'), excluded);
      } catch (error) {
        problem('unreadable', `folder cannot be read (${errorCode(error)}).`);
      }
    } else if (found.kind === 'other') {
      problem('unreadable', `${found.reason}.`);
    } else if (mayGlob && fg.isDynamicPattern(arg)) {
      const findings = searchFindings('glob');
      await expandGlob(arg, cwd, findings);
      if (findings.reported === 0) problem('no_match', 'no file matches this pattern.');
    } else {
      const raw = await notUtf8PathOf(path);
      // The outcome names the argument already: the message says only what is wrong with it.
      if (raw) problem('name_not_utf8', notUtf8Message(shownAs(arg, raw), (await lstat(raw.bytes).catch(() => undefined))?.isDirectory() ? 'folder' : 'file'));
      else problem('file_not_found', 'no such file or folder.');
    }
  };
  try {
    for (const arg of args) await visit(arg, true);
    for (const path of options.literal ?? []) await visit(path, false);
  } catch (error) {
    inputs.close();
    objects?.close();
    throw error;
  }
  if (objects) result.objects = objects;
  result.skipped = uniqueByPath(result.skipped);
  result.commonBase = common.value(cwd);
  return result;
}

/** Loaded with the first s3:// argument: a run over local files loads nothing of object storage. */
async function objectInputs(options: ObjectInputOptions): Promise<ObjectInputs> {
  const { ObjectInputs } = await import('../storage/object-inputs.js');
  return new ObjectInputs(options);
}

const NOT_ALLOWED = 'outside the folders this run may read (symbolic links followed); nothing of it was read.';

/** Overlapping arguments (`in/` and `in/*`) would otherwise report the same skipped file twice. */
function uniqueByPath(skipped: SkippedFile[]): SkippedFile[] {
  const seen = new Set<string>();
  return skipped.filter((file) => !seen.has(file.path) && seen.add(file.path));
}

type LiteralPath = { kind: 'file' | 'folder' | 'missing' } | { kind: 'other'; reason: string };

async function statLiteral(path: string): Promise<LiteralPath> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // A dangling symbolic link exists as a name but not as a file: say so rather than "no such file".
      const link = await lstat(path).catch(() => undefined);
      return link?.isSymbolicLink() ? { kind: 'other', reason: 'broken symbolic link' } : { kind: 'missing' };
    }
    return { kind: 'other', reason: `cannot be read (${errorCode(error)})` };
  }
  if (info.isFile()) return { kind: 'file' };
  if (info.isDirectory()) return { kind: 'folder' };
  return { kind: 'other', reason: 'not a regular file or folder' };
}

/**
 * Expands a glob. Symbolic links to folders are not followed (fast-glob would
 * walk a loop like `a/loop -> ..` until the OS gives up); a matched folder is
 * searched like a named one. Unreadable folders are passed over, as a shell does.
 */
async function expandGlob(pattern: string, cwd: string, findings: SearchFindings): Promise<void> {
  const entries = await fg(pattern, {
    cwd,
    absolute: true,
    onlyFiles: false,
    followSymbolicLinks: false,
    dot: false,
    unique: true,
    suppressErrors: true,
    objectMode: true,
  });
  entries.sort((a, b) => comparePaths(a.path, b.path));
  for (const entry of entries) {
    if (entry.dirent.isDirectory()) {
      await walkFolder(entry.path, findings).catch((error: unknown) => findings.skip(entry.path, `folder cannot be read (${errorCode(error)})`));
      continue;
    }
    const kind = await entryKind(entry.dirent, entry.path);
    if (kind === 'file') await takeIfSupported(entry.path, findings);
    else findings.skip(entry.path, kind);
  }
}

import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ACCEPTED_TYPES_TEXT } from './file-type.js';
import { hasSupportedExtension, isHiddenName } from './paths.js';
import { notUtf8Message, notUtf8PathOf } from './raw-names.js';

/** Where a search (a folder or a glob) reports what it finds, as it finds it: a batch of any size is never listed whole. */
export interface SearchFindings {
  /** A file to take; `real` is its real path when the search knows it without asking the file system. */
  file(path: string, real?: string): Promise<void>;
  /** A file passed over, and why. */
  skip(path: string, reason: string): void;
}

/**
 * Reports the supported files under `folder`, recursively, in a stable order
 * (names sorted by code unit at each level, depth first).
 *
 * Rules, and why:
 * - Symbolic links to files are taken; symbolic links to folders are not
 *   followed (like `find`, `fd` and ripgrep by default). Following them can
 *   leave the folder the user named (`a/loop -> ..`) or loop for ever.
 * - Hidden files and folders (name starting with a dot) are passed over but
 *   reported, so nothing disappears silently; a hidden folder is reported once
 *   and not entered.
 * - Files whose extension is not .pdf/.jpg/.jpeg/.png are reported, not taken:
 *   inside a folder the name is all we have to tell documents from the rest.
 * - A subfolder that cannot be read is reported and the walk goes on.
 */
export async function walkFolder(folder: string, findings: SearchFindings, excluded: (path: string) => boolean = () => false): Promise<void> {
  await walk(folder, findings, new Set<string>(), excluded);
}

async function walk(folder: string, findings: SearchFindings, visitedFolders: Set<string>, excluded: (path: string) => boolean): Promise<void> {
  // Real paths guard against bind mounts and other cycles that are not symbolic links.
  const real = await realpath(folder).catch(() => folder);
  if (visitedFolders.has(real)) return;
  visitedFolders.add(real);

  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (isHiddenName(entry.name)) {
      findings.skip(path, entry.isDirectory() ? 'hidden folder (not searched)' : 'hidden file');
      continue;
    }
    if (entry.isDirectory()) {
      if (excluded(path)) continue; // the output or state folder: never inputs
      try {
        await walk(path, findings, visitedFolders, excluded);
      } catch (error) {
        findings.skip(path, await unreadFolderReason(path, error));
      }
      continue;
    }
    const kind = await entryKind(entry, path);
    // A plain file's real path is its folder's and its name: no system call for each of a million files.
    if (kind === 'file') await takeIfSupported(path, findings, entry.isFile() ? join(real, entry.name) : undefined);
    else findings.skip(path, kind);
  }
}

/** Takes a file found by searching when its name says it is a document we accept. */
export async function takeIfSupported(path: string, findings: SearchFindings, real?: string): Promise<void> {
  if (hasSupportedExtension(path)) await findings.file(path, real);
  else findings.skip(path, `not a ${ACCEPTED_TYPES_TEXT} file name (.pdf, .jpg, .jpeg, .png)`);
}

/** 'file', or why the entry is not one: a reason for `skipped`. */
export async function entryKind(entry: Pick<Dirent, 'isFile' | 'isSymbolicLink'>, path: string): Promise<string> {
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return 'not a regular file';
  try {
    const target = await stat(path);
    if (target.isFile()) return 'file';
    return target.isDirectory() ? 'symbolic link to a folder (not followed)' : 'symbolic link to something that is not a file';
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? 'broken symbolic link' : `symbolic link cannot be followed (${errorCode(error)})`;
  }
}

/** Why a folder found could not be read: a name that is not UTF-8 is said as such (its path, as decoded, names no folder). */
async function unreadFolderReason(path: string, error: unknown): Promise<string> {
  const raw = errorCode(error) === 'ENOENT' ? await notUtf8PathOf(path) : undefined;
  return raw ? `${notUtf8Message(raw.shown, 'folder')} (name_not_utf8)` : `folder cannot be read (${errorCode(error)})`;
}

export function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? String(error);
}

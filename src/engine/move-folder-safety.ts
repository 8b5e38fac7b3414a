/**
 * Whether `watch --move-done / --move-failed` can move a file without
 * someone else redirecting it (issue 51): moves rename by path, so every
 * folder on the way must be one nobody but this user and root can swap
 * (store/folder-chain.ts). The folders are judged at start, and each move's
 * own way again just before its rename.
 */
import { openFolderReason, walkFolderChain, type SwappableFolder } from '../store/folder-chain.js';
import { MoveUnsafeError } from './move-unsafe-error.js';

/**
 * Why moves out of or into `folder` could be redirected by someone else, if
 * they could: a step on its way they could swap, or the folder itself (or,
 * when it is not there yet, the last folder there is) theirs, or open to
 * others' writes without a sticky bit. `make`: the missing folders are made.
 */
export async function movesFolderProblem(folder: string, make = false): Promise<SwappableFolder | undefined> {
  const end = await walkFolderChain(folder, { make });
  if ('swappable' in end) return end.swappable;
  const reason = openFolderReason(end.stats);
  return reason === undefined ? undefined : { folder: end.path, reason };
}

/**
 * The watch's own folders at start: the watched folder, `--move-done` and
 * `--move-failed`, when moves are asked for, each refused with
 * {@link MoveUnsafeError} when someone else could redirect moves out of or
 * into it. Each move checks its own way again (a folder made writable later,
 * a folder another user made in a shared inbox).
 */
export async function refuseUnsafeMoveFolders(targets: { root: string; done?: string; failed?: string }): Promise<void> {
  if (targets.done === undefined && targets.failed === undefined) return;
  for (const [what, folder] of [
    ['the watched folder', targets.root],
    ['--move-done', targets.done],
    ['--move-failed', targets.failed],
  ] as const) {
    if (folder === undefined) continue;
    const problem = await movesFolderProblem(folder);
    if (problem === undefined) continue;
    throw new MoveUnsafeError(
      problem.folder,
      problem.reason,
      `cannot move files out of or into ${what} ${folder}: ${unsafeText(problem)}. Use folders only you (and root) can write to, or a shared one with the sticky bit (chmod 1777), or watch without --move-done and --move-failed.`,
    );
  }
}

/** Throws {@link MoveUnsafeError} for the move of `path` when its way could be swapped. */
export function refuseSwappable(problem: SwappableFolder | undefined, path: string): void {
  if (problem) throw new MoveUnsafeError(problem.folder, problem.reason, `${unsafeText(problem)} (move_unsafe); ${path} is not moved`);
}

function unsafeText(problem: SwappableFolder): string {
  return `${problem.folder}: ${problem.reason}, so someone else could swap a folder on the way for a link between the check and the move`;
}

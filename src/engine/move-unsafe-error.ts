import { DocextractError } from '../util/docextract-error.js';

/**
 * A `--move-done` / `--move-failed` move that someone other than this user
 * (or root) could redirect: a folder on its way that they could swap for a
 * link between the check and the rename (Node has no renameat on a folder's
 * descriptor to make that race-free). Refused at start for the folders
 * themselves; for one file, at its move (it stays where it is).
 */
export class MoveUnsafeError extends DocextractError {
  /** Always `'MoveUnsafeError'`. */
  override readonly name = 'MoveUnsafeError';
  /** Always `move_unsafe`. */
  readonly code = 'move_unsafe';

  constructor(
    /** The folder someone else could swap (or that lets them swap what is in it). */
    readonly folder: string,
    /** Why, in words: whose it is, or the mode that lets others write. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

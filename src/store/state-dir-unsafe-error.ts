import { DocextractError } from '../util/docextract-error.js';

/**
 * The state folder, or a file in it, is not this user's alone: another user
 * owns it, others may write to it, or a file in it is a link. Refused rather
 * than used, since whoever can plant files there can plant a link that the
 * next append follows, or a lock that blocks every run.
 */
export class StateDirUnsafeError extends DocextractError {
  /** Always `'StateDirUnsafeError'`. */
  override readonly name = 'StateDirUnsafeError';
  /** Always `state_dir_unsafe`. */
  readonly code = 'state_dir_unsafe';

  constructor(
    /** The folder, or the file in it, that is refused. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

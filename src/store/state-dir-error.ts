import { DocextractError } from '../util/docextract-error.js';

/** The state folder (journal, lock, send log) cannot be created, read or written. */
export class StateDirError extends DocextractError {
  /** Always `'StateDirError'`. */
  override readonly name = 'StateDirError';
  /** Always `state_dir_unusable`. */
  readonly code = 'state_dir_unusable';

  constructor(
    /** The state folder. */
    readonly stateDir: string,
    /** What failed (an errno error). */
    override readonly cause: unknown,
  ) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`The state folder ${stateDir} is not usable${code ? ` (${code})` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

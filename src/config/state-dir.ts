import { homedir } from 'node:os';
import { join } from 'node:path';

/** The state folder the CLI and the library share: DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  if (env.DOCEXTRACT_STATE_DIR) return env.DOCEXTRACT_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'docextract');
}

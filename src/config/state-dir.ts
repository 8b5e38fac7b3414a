import { homedir } from 'node:os';
import { join } from 'node:path';

/** The state folder the CLI and the library share: DOCEXTRACT_STATE_DIR, else $XDG_STATE_HOME/docextract, else ~/.local/state/docextract. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  if (env.DOCEXTRACT_STATE_DIR) return env.DOCEXTRACT_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'docextract');
}

/**
 * The document types shell completion offers, in the state folder: one `name<TAB>description` a line, plain text, so the
 * completion script reads it with the shell's own `read` on each Tab (no Node, no JSON parser). Only names a shell reads back
 * as the one plain word they are are written there (store/model-names-cache.ts), and the scripts check that again.
 */
export const COMPLETION_TYPES_FILE = 'document-types.txt';

/**
 * The batch journal in the state folder (NDJSON, one record a line: batch/journal-records.ts). Shell completion reads it
 * too, with the shell's own `read`, to offer the open job ids after `collect`: a Tab starts no process.
 */
export const JOURNAL_FILE = 'journal.ndjson';

import { join } from 'node:path';
import type { ModelEntry } from '../api/model-names.js';
import { writeFileAtomicallySync } from './atomic-write.js';
import { PRIVATE_FILE_MODE, readPrivateFileSync } from './private-files.js';
import { preparePrivateStateDirSync } from './private-state-dir.js';

/**
 * The document types of the last `models` answer for one account, kept in the
 * state folder so that shell completion can offer them: Tab never sends a request.
 */
function modelNamesPath(stateDir: string, account: string): string {
  return join(stateDir, `models-${account}.json`);
}

/** Keep the names (a few KB at most; written whole, atomically, each time `models` answers). */
export function rememberModelNames(stateDir: string, account: string, models: readonly ModelEntry[], now: number): void {
  preparePrivateStateDirSync(stateDir);
  writeFileAtomicallySync(modelNamesPath(stateDir, account), `${JSON.stringify({ saved_at: new Date(now).toISOString(), models })}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
}

/** The names kept for the account; none when nothing was kept or the file is unreadable (completion must never fail). */
export function readModelNames(stateDir: string, account: string): ModelEntry[] {
  try {
    const parsed = JSON.parse(readPrivateFileSync(modelNamesPath(stateDir, account))) as { models?: unknown };
    if (!Array.isArray(parsed.models)) return [];
    return parsed.models.filter((entry): entry is ModelEntry => typeof entry === 'object' && entry !== null && typeof (entry as ModelEntry).name === 'string');
  } catch {
    return [];
  }
}

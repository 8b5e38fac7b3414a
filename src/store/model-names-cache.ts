import { join } from 'node:path';
import type { ModelEntry } from '../api/model-names.js';
import { COMPLETION_TYPES_FILE } from '../config/state-dir.js';
import { shellQuote } from '../util/shell-quote.js';
import { renderUntrusted } from '../util/untrusted-text.js';
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

/**
 * Keep the names (a few KB at most; written whole, atomically, each time `models` answers): per account as JSON, and as
 * the plain-text list the completion scripts read (COMPLETION_TYPES_FILE). That list is the last answer whatever the
 * account: a shell cannot work out the account (a hash of the key) without starting a process.
 */
export function rememberModelNames(stateDir: string, account: string, models: readonly ModelEntry[], now: number): void {
  preparePrivateStateDirSync(stateDir);
  writeFileAtomicallySync(modelNamesPath(stateDir, account), `${JSON.stringify({ saved_at: new Date(now).toISOString(), models })}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
  writeFileAtomicallySync(join(stateDir, COMPLETION_TYPES_FILE), completionLines(models), { mode: PRIVATE_FILE_MODE });
}

/**
 * One `name<TAB>description` a line. A name the service sent with a control or bidi character is left out (the shell would
 * put it into the command line raw; a newline in it would even make a second, made-up name), and so is one a shell would
 * not read as the one plain word it is (`x;rm -rf ~`, `$(…)`): completion inserts it unquoted, one Enter from running.
 * The description is only shown (zsh, fish): rendered, on one line.
 */
function completionLines(models: readonly ModelEntry[]): string {
  return models
    .filter((type) => renderUntrusted(type.name) === type.name && shellQuote(type.name) === type.name)
    .map((type) => `${type.name}\t${renderUntrusted((type.description ?? '').replace(/\s+/g, ' ').trim())}\n`)
    .join('');
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

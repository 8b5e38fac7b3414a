import { join } from 'node:path';
import { parseRateWindows } from '../config/grammar/rate-limit.js';
import { writeFileAtomicallySync } from './atomic-write.js';
import { PRIVATE_FILE_MODE, readPrivateFileSync } from './private-files.js';
import { preparePrivateStateDirSync } from './private-state-dir.js';

/**
 * The rate windows a person declared for a key (by flag, environment or
 * profile), kept per account beside its send log: the windows are the key's,
 * so a later command on the key (`docextract collect <id>` pasted alone, a
 * `usage`) counts with them unless it is told otherwise.
 */
function declaredWindowsPath(stateDir: string, account: string): string {
  return join(stateDir, `windows-${account}.json`);
}

/** The declared `rate-limit` text of the account; undefined when none was declared, or the file is unreadable or not windows. */
export function readDeclaredRateLimit(stateDir: string, account: string): string | undefined {
  try {
    const parsed = JSON.parse(readPrivateFileSync(declaredWindowsPath(stateDir, account))) as { rate_limit?: unknown };
    if (typeof parsed.rate_limit !== 'string') return undefined;
    parseRateWindows(parsed.rate_limit); // a file edited into nonsense declares nothing
    return parsed.rate_limit;
  } catch {
    return undefined;
  }
}

/** Keep what was declared for the account (written whole and atomically, only when it changed). */
export function rememberDeclaredRateLimit(stateDir: string, account: string, rateLimit: string, now: number): void {
  if (readDeclaredRateLimit(stateDir, account) === rateLimit) return;
  preparePrivateStateDirSync(stateDir);
  writeFileAtomicallySync(declaredWindowsPath(stateDir, account), `${JSON.stringify({ rate_limit: rateLimit, declared_at: new Date(now).toISOString() })}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
}

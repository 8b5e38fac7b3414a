// dist/ is built from src/ by `npm run build` (and by `npm run demo`, `npm test` and `npm pack`); a
// fresh clone after `npm ci` has none yet. Say so in one line, exit 2 (a usage error), never a stack trace.
import { existsSync } from 'node:fs';

/** Exits with 2 and one line when `entry` (a dist/ module, as a URL) has not been built. */
export function requireBuilt(entry, command) {
  if (existsSync(entry)) return;
  process.stderr.write(
    `error: ${command} is not built yet (no ${new URL('.', new URL('..', entry)).pathname}); run \`npm run build\` in ${new URL('..', import.meta.url).pathname} first (not_built)\n`,
  );
  process.exit(2);
}

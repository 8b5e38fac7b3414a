import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The desktop's opener on this system: xdg-open (Linux, BSD), open (macOS); none elsewhere. */
const OPENERS: Partial<Record<NodeJS.Platform, string>> = { linux: 'xdg-open', freebsd: 'xdg-open', openbsd: 'xdg-open', darwin: 'open' };

/**
 * Open `url` in the person's browser, when the system has an opener on its
 * PATH; true when one was started. The opener is left to itself (detached):
 * the browser outlives this process.
 */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = OPENERS[platform];
  const found = opener && (await onPath(opener, env.PATH ?? ''));
  if (!found) return false;
  return new Promise((resolve) => {
    const child = spawn(found, [url], { detached: true, stdio: 'ignore', env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

async function onPath(name: string, path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { writeRedirectPage } from './redirect-page.js';

/** The desktop's opener on this system: xdg-open (Linux, BSD), open (macOS); none elsewhere. */
const OPENERS: Partial<Record<NodeJS.Platform, string>> = { linux: 'xdg-open', freebsd: 'xdg-open', openbsd: 'xdg-open', darwin: 'open' };

/** What opening the page left behind: whether an opener started, and the private page it was given, to remove once the review stops. */
export interface OpenedBrowser {
  /** True when an opener (e.g. `xdg-open`) was found on PATH and started; false: show the person the URL instead. */
  opened: boolean;
  /** Remove the private redirect page; call it once the review is over (nothing to do when not opened). */
  close(): Promise<void>;
}

/**
 * Open `url` in the person's browser, when the system has an opener on its
 * PATH. The opener gets the path of a private page that redirects to `url`
 * (see redirect-page.ts), so the token never appears in another process's
 * arguments. The opener is left to itself (detached): the browser outlives
 * this process; the page is removed by `close()`.
 */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<OpenedBrowser> {
  const opener = OPENERS[platform];
  const found = opener && (await onPath(opener, env.PATH ?? ''));
  if (!found) return { opened: false, close: async () => undefined };
  const page = await writeRedirectPage(url);
  const opened = await new Promise<boolean>((resolve) => {
    const child = spawn(found, [page.path], { detached: true, stdio: 'ignore', env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  if (!opened) await page.remove();
  return { opened, close: () => page.remove() };
}

async function onPath(name: string, path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A page on disk that sends the browser on to the review page; removed when the review stops. */
export interface RedirectPage {
  path: string;
  remove(): Promise<void>;
}

/**
 * Write a page that sends the browser on to `url`, in a folder of its own
 * (0700, from mkdtemp) as a 0600 file. The browser opener is handed this
 * page's path, never the URL: a process's arguments are public on this
 * machine (`ps`), and the token in the URL is all it takes to read the
 * documents and save corrections. Jupyter opens its page the same way.
 */
export async function writeRedirectPage(url: string, parent: string = tmpdir()): Promise<RedirectPage> {
  const dir = await mkdtemp(join(parent, 'docextract-review-'));
  const path = join(dir, 'open-review.html');
  const href = escapeAttribute(url);
  const html = `<!DOCTYPE html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${href}">\n<title>docextract review</title>\n<p><a href="${href}">Open the review page</a></p>\n`;
  await writeFile(path, html, { flag: 'wx', mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

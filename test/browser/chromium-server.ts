import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/**
 * One Chromium for every browser test file (vitest.browser.config.ts's global setup): each file
 * connects to it (test/helpers/chromium.ts) and opens its own contexts, instead of launching a
 * browser of its own (about 2 CPU-seconds each on the 2-core machine).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the shared Chromium listens (playwright's protocol). */
    chromiumEndpoint: string;
  }
}

/** Debian's package (apt-get install chromium); playwright-core downloads none. */
const CHROMIUM = process.env.DOCEXTRACT_CHROMIUM ?? '/usr/bin/chromium';

export default async function startChromium(project: TestProject): Promise<() => Promise<void>> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}

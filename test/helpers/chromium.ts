import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** The browser tests' shared Chromium (test/browser/chromium-server.ts); closing what this returns disconnects this file only. */
export function connectChromium(): Promise<Browser> {
  return chromium.connect(inject('chromiumEndpoint'));
}

/** Types for scripts/build-when-stale.js (test/global-setup.ts imports it). */
export function sourceHash(root?: string): string;
export function stampFile(root?: string): string;
export function buildWhenStale(root?: string, log?: (line: string) => void): boolean;

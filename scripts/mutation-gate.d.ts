/** Types for scripts/mutation-gate.js (test/unit/scripts/mutation-gate.test.ts imports it). */
export function modulesToScore(options: { changed: readonly string[]; coreModules: readonly string[]; testText: (path: string) => string }): string[];
export function chooseBase(
  candidates: readonly { from: string; commit: string | undefined }[],
  isCommit: (commit: string) => boolean,
): { from: string; commit: string } | undefined;

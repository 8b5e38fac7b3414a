/** Types for scripts/inject-sea-blob.js (test/binary/inject-sea-blob.test.ts imports it). */
export const SEA_FUSE: string;
export function withoutLiefSectionNameWarnings<T>(run: () => Promise<T>): Promise<T>;
export function injectSeaBlob(binary: string, blob: string): Promise<void>;

/**
 * The service's own limits (API v3.1 §4, §8), in one place: everything that
 * checks a file, a setting or a plan against them reads them from here.
 */
export const SERVICE_LIMITS = {
  /** Largest upload, in bytes (10 MB). */
  maxFileBytes: 10 * 1024 * 1024,
  /** Most pages in one uploaded PDF. */
  maxPages: 150,
  /** A PDF of up to this many pages (and any image) is extracted synchronously; above it, it is split. */
  maxSyncPages: 3,
  /** Pages per chunk of a split document. */
  chunkPages: 3,
  /** Open multi-page jobs per key. */
  maxOpenJobs: 5,
  /** How long a job lives after its split. */
  jobTtlMs: 2 * 3_600_000,
} as const;

/** Whether a document of `pages` pages is split into chunks (undefined: a PDF whose pages could not be counted, decided by the server). */
export function isSplit(pages: number): boolean {
  return pages > SERVICE_LIMITS.maxSyncPages;
}

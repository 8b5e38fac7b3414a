/**
 * The inspection worker's code as one script, for the single executable:
 * it has no worker file beside it, so the worker is started from this text
 * (`new Worker(code, { eval: true })`). scripts/build-binary.js bundles
 * pdf-inspection-worker.ts into it; everywhere else it stays undefined and
 * the worker is started from its file.
 */
export const BUNDLED_WORKER_SOURCE: string | undefined = undefined;

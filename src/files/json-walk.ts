import { relative } from 'node:path';
import fg from 'fast-glob';
import { REVIEW_SIDECAR_GLOB } from '../store/result-names.js';

/**
 * Every `*.json` file below `dir`, streamed as found, so a folder of 100,000
 * results never becomes one list in memory. Hidden names (`.x.json.tmp-...`
 * left by an interrupted atomic write) are not taken; symbolic links to
 * folders are not followed (a loop would never end). A person's review of a
 * result (`<result>.review.json`, see src/store/result-names.ts) is read
 * with its result, never as a file of its own.
 */
export async function* walkJsonFiles(dir: string): AsyncGenerator<{ path: string; relativePath: string }> {
  const stream = fg.stream('**/*.json', {
    cwd: dir,
    absolute: true,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: [REVIEW_SIDECAR_GLOB],
  });
  for await (const entry of stream) {
    const path = String(entry);
    yield { path, relativePath: relative(dir, path) };
  }
}

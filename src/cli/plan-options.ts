import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';

/**
 * How `extract` and `watch` plan a file, from the command's settings: the
 * folder paths are resolved against, where results go (never searched for
 * inputs, nor the state folder), the windows a split document must fit, its
 * document type and pages, and --debug's lines. The run's TTL and margin
 * come with `settings.run`.
 */
export function planOptionsOf(ctx: CliContext, settings: BatchSettings) {
  return {
    cwd: ctx.io.cwd,
    outDir: settings.outDir,
    windows: settings.windows,
    models: settings.models,
    pages: settings.pages,
    exclude: [ctx.stateDir()],
    debug: (line: string) => ctx.debug(line),
  };
}

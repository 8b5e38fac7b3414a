import type { CliContext } from './context.js';

/**
 * Run `work` under an ora spinner on stderr, only where the UI may animate
 * (a terminal, not CI, --quiet or --json); elsewhere just run it. ora is
 * loaded only then. stdin stays untouched: ora's raw-mode stdin would swallow
 * the Ctrl-C our own handler needs.
 */
export async function withSpinner<T>(
  ctx: CliContext,
  text: string,
  work: () => Promise<T>,
  summary: (result: T) => string,
  succeeded: (result: T) => boolean = () => true,
): Promise<T> {
  if (!ctx.ui.interactive) return work();
  const { default: ora } = await import('ora');
  // isEnabled: the Ui has decided from the injected environment; left alone, ora would decide again from process.env.
  const spinner = ora({
    text,
    stream: ctx.io.stderr as NodeJS.WritableStream,
    isEnabled: true,
    discardStdin: false,
    color: ctx.ui.paint.level > 0 ? 'cyan' : false,
  }).start();
  try {
    const result = await work();
    // A green tick only for what went well: "0 files ready" is a warning, not a success.
    if (succeeded(result)) spinner.succeed(summary(result));
    else spinner.warn(summary(result));
    return result;
  } catch (error) {
    spinner.stop();
    throw error;
  }
}

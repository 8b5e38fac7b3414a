import type { CliContext } from './context.js';

/** A spinner started: ended once, with its summary (a green tick, or a warning), or stopped without one. */
export interface Spinner {
  /** Ends it with `summary`: a green tick when `succeeded`, else a warning sign. */
  done(summary: string, succeeded: boolean): void;
  /** Ends it without a summary (an error came first). Safe after `done`. */
  stop(): void;
}

/**
 * Starts an ora spinner on stderr, only where the UI may animate (a
 * terminal, not CI, --quiet or --json); elsewhere one that shows nothing.
 * ora is loaded only then. Ended synchronously, so that a run's hook can end
 * it before the run's display draws. stdin stays untouched: ora's raw-mode
 * stdin would swallow the Ctrl-C our own handler needs.
 */
export async function startSpinner(ctx: CliContext, text: string): Promise<Spinner> {
  if (!ctx.ui.interactive) return { done: () => undefined, stop: () => undefined };
  const { default: ora } = await import('ora');
  // isEnabled: the Ui has decided from the injected environment; left alone, ora would decide again from process.env.
  const spinner = ora({
    text,
    stream: ctx.io.stderr as NodeJS.WritableStream,
    isEnabled: true,
    discardStdin: false,
    color: ctx.ui.paint.level > 0 ? 'cyan' : false,
  }).start();
  let ended = false;
  return {
    done: (summary, succeeded) => {
      if (ended) return;
      ended = true;
      // A green tick only for what went well: "0 files ready" is a warning, not a success.
      if (succeeded) spinner.succeed(summary);
      else spinner.warn(summary);
    },
    stop: () => {
      if (ended) return;
      ended = true;
      spinner.stop();
    },
  };
}

/** Runs `work` under a spinner (see {@link startSpinner}), ended with `summary` of its result. */
export async function withSpinner<T>(
  ctx: CliContext,
  text: string,
  work: () => Promise<T>,
  summary: (result: T) => string,
  succeeded: (result: T) => boolean = () => true,
): Promise<T> {
  const spinner = await startSpinner(ctx, text);
  try {
    const result = await work();
    spinner.done(summary(result), succeeded(result));
    return result;
  } finally {
    spinner.stop();
  }
}

import { StdoutClosed } from './io.js';
import type { Ui } from './ui.js';

/**
 * First Ctrl-C (or SIGTERM): stop admitting work, let requests in flight
 * finish, save. Second: exit at once with 130 (everything stays resumable,
 * because the journal is written before each request). A SIGINT listener
 * replaces Node's default exit, hence the explicit exit here: the one place
 * outside main that ends the process, because main cannot run while the
 * event loop is draining. `injected`, when aborted, counts as a first SIGTERM.
 * `lastWords` runs (synchronously) before that exit and its message: what must be on disk
 * before the process goes, such as the credits it spent, and the progress display cleared.
 */
export function watchInterrupts(ui: Ui, injected?: AbortSignal, lastWords?: () => void): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: string): void => {
    if (controller.signal.aborted) {
      try {
        lastWords?.(); // first: it may clear a display that would otherwise hold this message back
      } finally {
        ui.error('second interrupt: exiting now; run the same command again to resume.');
        process.exit(130);
      }
    }
    ui.error(`${name}: finishing the requests in flight and saving; press Ctrl-C again to exit at once.`);
    controller.abort(new Error(name));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // An in-process caller (a test) stands in for the first signal.
  // A closed stdout (io.ts) stops the run the same way, under its own name: it is no signal.
  const onInjected = (): void => onSignal(injected?.reason instanceof StdoutClosed ? 'stdout closed' : 'SIGTERM');
  if (injected?.aborted) onInjected();
  else injected?.addEventListener('abort', onInjected, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      injected?.removeEventListener('abort', onInjected);
    },
  };
}

/**
 * A front door's run shell hands the engine one run and gets its report
 * back: the engine decides whether it hosts or rides along (library/one-client-run.ts).
 * What the run does when it hosts, and what it rides along with, stay the
 * engine's types; a front door passes them on without naming their parts.
 */
import type { BatchEvents } from '../batch/batch-types.js';
import type { EngineRun } from './one-client-run.js';

export type { EngineRun, RideAlong } from './one-client-run.js';
export type { ExtractionReport } from '../engine/batch-report.js';

/** What a run's own work is given when it hosts: the session (gate, journal, send log) with the run's events. */
export type HostedSession<E extends BatchEvents> = Parameters<EngineRun<unknown, E>['host']>[0];

/** What came back while the run rode along before it came to host (the rest of its work is in it); undefined when it hosts from the start. */
export type RiddenSoFar = Parameters<EngineRun<unknown, BatchEvents>['host']>[1];

/**
 * Runs `run` on the engine as one client with every command on its state
 * folder: hosting when it can take the folder, else riding along on the
 * command that holds it (and hosting what is left if that one hands over).
 */
export async function runOnEngine<R, E extends BatchEvents>(run: EngineRun<R, E>): Promise<R> {
  // Loaded at the run, not with the entry: a CLI command imports this entry before it tunes the heap for a long run,
  // and loading the engine first costs peak RSS (bench section 4).
  const { runDocuments } = await import('./one-client-run.js');
  return runDocuments(run);
}

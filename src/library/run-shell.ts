/**
 * The halves of a run as the engine takes them (library/one-client-run.ts):
 * what the run does when it hosts, and what it rides along with. The
 * client's calls build them; no front door names their parts.
 */
import type { BatchEvents } from '../batch/batch-types.js';
import type { EngineRun } from './one-client-run.js';

export type { RideAlong } from './one-client-run.js';

/** What a run's own work is given when it hosts: the session (gate, journal, send log) with the run's events. */
export type HostedSession<E extends BatchEvents> = Parameters<EngineRun<unknown, E>['host']>[0];

/** What came back while the run rode along before it came to host (the rest of its work is in it); undefined when it hosts from the start. */
export type RiddenSoFar = Parameters<EngineRun<unknown, BatchEvents>['host']>[1];

/**
 * The one entry of every way to run documents: `extract`, `collect`,
 * `watch`, `jobs --refresh` and `process` of the CLI, `extractDocuments` of
 * the library (and so `docextract mcp`). It decides whether this command
 * hosts the scheduler (it takes the state folder) or rides along on the
 * command that holds it, and opens the session, the gate and the journal
 * once. Front doors add their words, display and exit codes; none assembles
 * the engine itself.
 */
import type { Socket } from 'node:net';
import type { ApiClient, ResponseEvent } from '../api/index.js';
import type { BatchEvents } from '../batch/batch-types.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { withEngineSession, type BatchDeps } from '../engine/batch-session.js';
import type { ExtractionReport } from '../engine/batch-report.js';
import { ClientBatch, type ClientWork } from '../engine/host/client-batch.js';
import type { ClientIdentity } from '../engine/host/host-connection.js';
import { asOneClient, type SubmissionEnd } from '../engine/host/one-client.js';
import type { SharedRunTerms } from '../engine/host/protocol.js';
import type { PartResults } from '../engine/parts.js';
import { accountId } from '../config/account-id.js';
import type { Clock } from '../util/clock.js';

/** Where and as whom a run talks to the service. */
export interface EngineAccess {
  /** The state folder: its lock decides who hosts, and it keeps the journal, the send log and the results index. */
  stateDir: string;
  /** The service's root URL (without `/v3.1`); with the key, the account the journal is kept by. */
  baseUrl: string;
  /** The service key. */
  apiKey: string;
  /** The key's request windows the gate keeps to. */
  windows: RateWindow[];
  /** The session's time: the gate's windows and the journal's expiries (an injected one in tests). */
  clock: Clock;
  /** How long a job lives on the server (the 2-hour TTL): the journal keeps an upload that got no answer for as long, since its job may still be open. */
  ttlMs: number;
  /** The run's client; every answer it gets must reach `onResponse` (the gate learns the server's windows and clock from it). */
  createClient: (onResponse: (event: ResponseEvent) => void) => ApiClient | Promise<ApiClient>;
  /** Lines for --debug. */
  debug?: (line: string) => void;
  /** Said plainly when an untrusted header changes the plan. */
  notice?: (message: string) => void;
}

/** One run of documents, whichever front door asks for it. */
export interface EngineRun<R, E extends BatchEvents> {
  /** Where and as whom the run talks to the service. */
  access: EngineAccess;
  /** Who asks, as `docextract jobs` lists it. */
  command: string;
  /** The run-level settings every document of a shared run runs with: a command whose terms differ waits to host its own run. */
  terms: Partial<Omit<SharedRunTerms, 'account'>>;
  /** Progress and outcomes; made once, when there is something to show. */
  events: () => E | Promise<E>;
  /** Ctrl-C (or the library's signal): drain. */
  signal?: AbortSignal;
  /** The command's own work, when it holds the state folder and hosts; `client`: what came back while it rode along before. */
  host(deps: BatchDeps & { events: E }, client: ClientBatch | undefined): Promise<R>;
  /** How it rides along on a command that holds the folder; none: it waits to host. */
  ride?: RideAlong<R, E>;
  /** Said once when the run waits for the state folder instead of riding along. */
  waiting(message: string): void;
  /** Throw LockedError (`state_locked`) at once when another command holds the folder and takes no submission (or there is no `ride`), instead of waiting for it. @default false */
  failWhenHeld?: boolean;
  /** Whether other commands may ride along on this one while it holds the folder: false for work that feeds no runner they could join (a stream of the library's, a refresh, one chunk); they wait for the folder instead. @default true */
  hosts?: boolean;
}

/** Documents (or a collect) submitted as they are, or arrivals of the command's own making (`watch`). */
export type RideAlong<R, E> =
  | {
      /** What it submits; a function when it is made only to ride along (a large batch is checked in full only then, until `stop`, the run's). */
      work: ClientWork | ((stop: AbortSignal | undefined) => Promise<ClientWork>);
      /** The command's sources sent in parts: one outcome each, whoever ran the parts. */
      parts?: PartResults;
      /** Before the first submission (the free check of the document types). */
      prepare?: () => Promise<void>;
      /** The run's result from what came back, when it rode along to its end. */
      finish: (report: ExtractionReport) => R | Promise<R>;
    }
  | {
      /** Submits the command's own arrivals on the holding command's socket until they end or `stop`; the end says whether the run is done or must host. */
      submitWith: (socket: Socket, events: E, who: ClientIdentity, stop: AbortSignal | undefined) => Promise<SubmissionEnd<R>>;
      /** Before the first submission (the free check of the document types). */
      prepare?: () => Promise<void>;
    };

/** The account a key and service are: what the journal, the send log and the results index are kept by. */
export function accountOf(access: Pick<EngineAccess, 'baseUrl' | 'apiKey'>): string {
  return accountId(access.baseUrl, access.apiKey);
}

/**
 * Runs `run` as one client with every command on the state folder: as the
 * host when it can take the folder (its own documents, and those every
 * other command submits, in one runner behind one gate), else riding along
 * on the command that holds it; when that one hands over or dies, it hosts
 * or rides along with what is left.
 */
export async function runDocuments<R, E extends BatchEvents>(run: EngineRun<R, E>): Promise<R> {
  const account = accountOf(run.access);
  const terms = { account, ...run.terms } as SharedRunTerms;
  const who: ClientIdentity = { pid: process.pid, command: run.command, terms };
  let events: E | undefined;
  const eventsOnce = async (): Promise<E> => (events ??= await run.events());
  let client: ClientBatch | undefined;
  let prepared = false;
  const prepareOnce = async (): Promise<void> => {
    if (!prepared) await run.ride?.prepare?.();
    prepared = true;
  };
  const ride = run.ride;
  const submit = !ride
    ? undefined
    : 'work' in ride
      ? async (socket: Socket): Promise<SubmissionEnd<R>> => {
          // The work before the display: what checking it refuses is shown with what came before.
          const work = typeof ride.work === 'function' ? await ride.work(run.signal) : ride.work;
          client ??= new ClientBatch(work, await eventsOnce(), ride.parts);
          await prepareOnce();
          const end = await client.submit(socket, who, run.signal);
          return 'done' in end ? { done: await ride.finish(end.done) } : end;
        }
      : async (socket: Socket): Promise<SubmissionEnd<R>> => {
          const shown = await eventsOnce();
          await prepareOnce();
          return ride.submitWith(socket, shown, who, run.signal);
        };
  return asOneClient<R>({
    stateDir: run.access.stateDir,
    clock: run.access.clock,
    host: () =>
      withEngineSession({ ...run.access, ...(run.hosts === false ? {} : { host: { command: run.command, terms } }) }, async (deps) =>
        run.host({ ...deps, events: await eventsOnce() }, client),
      ),
    ...(submit ? { submit } : {}),
    ...(run.failWhenHeld ? { failWhenHeld: true } : {}),
    waiting: (message) => run.waiting(message),
  });
}

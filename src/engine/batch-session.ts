/**
 * The engine's words, one thing each (issue 53):
 *
 * - A **run** is one front door's request of the engine: the documents of one
 *   `extract`, `collect` or `watch` (of the CLI, of a program's `DocExtract`,
 *   of an MCP call), with its records (tally, usage, last run). The client
 *   (library/client/) makes runs; `runDocuments` (library/one-client-run.ts)
 *   is the one entry every run goes through.
 * - The **session** is what a process opens on the state folder once it holds
 *   its lock: the journal, the send log, the results index and the gate of
 *   every rate window (`BatchSession`, opened by `withEngineSession` here).
 * - The **host** is the process whose session is open: it runs its own run
 *   and the runs other processes submit to it, in one runner behind one gate.
 *   A run that finds the folder held **rides along**: it submits its
 *   documents to the host over its socket, and hosts what is left if the host
 *   hands over or dies. Together they are **one client** of the service.
 */
import { accountId } from '../config/account-id.js';
import type { ResultWriter } from '../store/atomic-write.js';
import { join } from 'node:path';
import { MalformedResponseError, ResponseTooLargeError, TransportError, type ApiClient, type ChunkProcessed, type ResponseEvent } from '../api/index.js';
import { replayJournal, recordsWorthKeeping, type JournalRecord, type JournalState } from '../batch/journal-records.js';
import { neverReached } from '../batch/flow-context.js';
import { RequestGate } from '../batch/request-gate.js';
import { BatchRunner, type RunnerDeps } from '../batch/runner.js';
import type { BatchEvents, ResultChecker, RunSettings } from '../batch/batch-types.js';
import { BATCH_EVENTS, composeEvents, type EventLayer } from '../batch/event-sink.js';
import { ServiceReadings } from '../batch/service-readings.js';
import { pausedForRateLimit } from './rate-limit-retry.js';
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { FileSendLog, sendLogPath } from '../batch/send-log.js';
import { Journal, JournalCorruptError } from '../store/journal.js';
import { ResultsIndex } from '../store/results-index.js';
import { dropKeptAnswer, keepAnswer, keptAnswersDir } from '../store/kept-answers.js';
import { questionKey } from '../batch/question.js';
import { serializeResult } from '../batch/result-file.js';
import { KnownResults, resultsIndexPath } from './known-results.js';
import { acquireStateLock, LockedError, type StateLock } from '../store/lock.js';
import { StateDirError } from '../store/state-dir-error.js';
import { StateDirUnsafeError } from '../store/state-dir-unsafe-error.js';
import { preparePrivateStateDir } from '../store/private-state-dir.js';
import type { Clock } from '../util/clock.js';
import { hubRouting } from './host/hosted-run.js';
import { HostHub } from './host/hub.js';
import { forcedReuse, type ForcedReuse } from './force-run.js';
import type { SharedRunTerms } from './host/protocol.js';
import type { ServerJobView } from './server-job-view.js';
import { JOURNAL_FILE } from '../config/state-dir.js';

/** What a batch of a command runs with: its client, session, clock and events. */
export interface BatchDeps {
  api: ApiClient;
  session: BatchSession;
  clock: Clock;
  events: BatchEvents;
  account: string;
  /** Called once before the first request a run sends. */
  warmUp?: () => Promise<void>;
  /** Writes a result file durably (before its job is finalized). @default writeFileAtomically */
  writeResult?: ResultWriter;
  /** Checks each result's data (new and reused) against its type's schema; none without schemas. */
  checker?: ResultChecker;
  /** This command hosts the scheduler for other commands on the state folder (engine/host). @default none */
  host?: HostHub;
}

export interface SessionOptions {
  stateDir: string;
  account: string;
  windows: RateWindow[];
  clock: Clock;
  ttlMs: number;
  /** Lines for --debug. */
  debug?: (line: string) => void;
  /** Said plainly on stderr when an untrusted header changes the plan. */
  notice?: (message: string) => void;
}

/**
 * The durable state of one run: the state-folder lock, the journal, and the
 * request gate whose send log outlives the process. Opened before the first
 * request and closed (journal compacted, lock released) after the last.
 */
export class BatchSession {
  private constructor(
    readonly journal: Journal<JournalRecord>,
    readonly gate: RequestGate,
    /** What the service's answers say of its clock and its windows. */
    readonly readings: ServiceReadings,
    readonly state: JournalState,
    /** Results of earlier runs by question (state folder), for files moved or renamed since. */
    readonly results: KnownResults,
    private readonly lock: StateLock,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /** Answers paid for whose result file could not be written (kept-answers.ts). */
    readonly keptDir: string,
  ) {}

  static async open(options: SessionOptions): Promise<BatchSession> {
    try {
      return await BatchSession.openUnchecked(options);
    } catch (error) {
      // A busy, damaged or shared folder has its own message; any other failure is the folder itself.
      if (error instanceof LockedError || error instanceof JournalCorruptError || error instanceof StateDirUnsafeError) throw error;
      throw new StateDirError(options.stateDir, error);
    }
  }

  private static async openUnchecked(options: SessionOptions): Promise<BatchSession> {
    await preparePrivateStateDir(options.stateDir);
    const lock = await acquireStateLock(options.stateDir, { clock: options.clock });
    try {
      const journal = await Journal.open<JournalRecord>(join(options.stateDir, JOURNAL_FILE));
      const keepMs = Math.max(60_000, ...options.windows.map((window) => window.windowMs));
      // One send log per key and service: the windows are the key's.
      const sendLog = new FileSendLog(sendLogPath(options.stateDir, options.account), { keepMs, clock: options.clock });
      const gate = new RequestGate({ windows: options.windows, clock: options.clock, sendLog });
      const mine = journal.records.filter((record) => record.account === options.account);
      const readings = new ServiceReadings({ windows: options.windows, debug: options.debug, notice: options.notice });
      const results = new KnownResults(await ResultsIndex.open(resultsIndexPath(options.stateDir, options.account)));
      return new BatchSession(journal, gate, readings, replayJournal(mine), results, lock, options.clock, options.ttlMs, keptAnswersDir(options.stateDir));
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Learn from every answer (its Date and rate headers) and feed what can be trusted into the gate. */
  observe(event: ResponseEvent): void {
    const observation = this.readings.observe(event);
    if (observation) this.gate.observe(observation);
  }

  /** Drop the records of finished work from the journal (file and memory); safe while work is being journaled. */
  compact(): Promise<void> {
    return this.journal.compactWith((records) => recordsWorthKeeping(records, this.clock.now(), this.ttlMs));
  }

  async close(): Promise<void> {
    try {
      await this.compact();
      await this.journal.close({ removeIfEmpty: true });
      await this.results.close().catch(() => undefined); // a cache: rebuilt when lost
    } finally {
      await this.lock.release();
    }
  }
}

/**
 * What the runner of a command's batch tells, and its finish hook. A
 * document's events go, in order: through the hub's routing when this
 * command hosts (another command's document goes to that command, even one
 * named like this command's own), then this command's `layers` (its parts:
 * a part held, its source told once written), then `deps.events` as the
 * front door composed them (its tally counts, then its display shows).
 */
export function runnerEvents(
  deps: Pick<BatchDeps, 'events' | 'host'>,
  layers: readonly EventLayer[],
  onFinished: RunnerDeps['onFinished'],
): Pick<RunnerDeps, 'events' | 'onFinished'> {
  const hosted = deps.host ? hubRouting(deps.host, onFinished) : undefined;
  return {
    events: composeEvents(BATCH_EVENTS, deps.events, [...(hosted ? [hosted.routing] : []), ...layers]),
    ...(hosted ? { onFinished: hosted.onFinished } : onFinished ? { onFinished } : {}),
  };
}

/** The runner of a batch in this session: its gate, readings and journal, with the command's client, clock and events (`runnerEvents`). */
export function sessionRunner(
  deps: BatchDeps,
  settings: RunSettings,
  options: Pick<RunnerDeps, 'phantomJobs' | 'keepOutcomes' | 'onFinished'> & { layers?: readonly EventLayer[] },
): BatchRunner {
  const { layers = [], onFinished, ...runnerOptions } = options;
  return new BatchRunner({
    api: deps.api,
    gate: deps.session.gate,
    readings: deps.session.readings,
    clock: deps.clock,
    journal: deps.session.journal,
    settings,
    account: deps.account,
    warmUp: deps.warmUp,
    ...(deps.writeResult ? { writeResult: deps.writeResult } : {}),
    keepAnswer: async (document) => {
      const kept = await keepAnswer(deps.session.keptDir, questionKey(document.question), serializeResult(document));
      // The results index answers the same question from there, for nothing, on the next run.
      await deps.session.results.record(document.question, kept);
      return kept;
    },
    dropKeptAnswer,
    ...(deps.checker ? { checker: deps.checker } : {}),
    ...runnerOptions,
    ...runnerEvents(deps, layers, onFinished),
  });
}

export interface EngineConnection extends Omit<SessionOptions, 'account'> {
  baseUrl: string;
  apiKey: string;
  /** The client of the run; every answer it gets must reach `onResponse` (the gate learns the server's windows and clock from it). */
  createClient: (onResponse: (event: ResponseEvent) => void) => ApiClient | Promise<ApiClient>;
  /** Host the scheduler for other commands on the state folder while this one holds it (engine/host). @default none */
  host?: { command: string; terms: SharedRunTerms };
}

/**
 * Runs `work` inside a durable session (state-folder lock, journal, request
 * gate) with a client whose answers feed the gate, and closes the session
 * (journal compacted, lock released) whatever happens. Every batch of the
 * CLI and of the library runs inside one.
 */
export async function withEngineSession<R>(connection: EngineConnection, work: (deps: Omit<BatchDeps, 'events'>) => Promise<R>): Promise<R> {
  const account = accountId(connection.baseUrl, connection.apiKey);
  const { createClient, baseUrl: _baseUrl, apiKey: _apiKey, host: hosting, ...sessionOptions } = connection;
  const session = await BatchSession.open({ ...sessionOptions, account });
  let host: HostHub | undefined;
  try {
    const api = await createClient((event) => session.observe(event));
    const refresh = async (jobIds: string[]): Promise<Map<string, ServerJobView>> =>
      (await import('./refresh-jobs.js')).refreshJobs(session, api, jobIds, connection.clock);
    const process = (chunkJobId: string, model: string | undefined): Promise<ChunkProcessed> =>
      processThroughGate(session, api, chunkJobId, model, connection.clock);
    // The journal is this session's: a forced command riding along has its forced run kept here.
    const forceRun = (command: string, notice: (message: string) => void): Promise<ForcedReuse<{ force: boolean }>> =>
      forcedReuse({ session, account, clock: connection.clock, events: { notice } }, { force: true }, command);
    host = hosting ? await HostHub.start(connection.stateDir, hosting.command, hosting.terms, { refresh, process, forceRun }) : undefined;
    return await work({ api, session, clock: connection.clock, account, warmUp: () => warmUp(api, connection.clock), ...(host ? { host } : {}) });
  } finally {
    // Commands still submitting take over once the lock is released.
    await host?.close();
    await session.close();
  }
}

/**
 * One chunk processed outside a runner (`process`, or another command's
 * through the host), through the gate: its slot, and once answered, when
 * the server counted it. A 429 is sent again once its window resets, as a
 * runner's requests are (pausedForRateLimit): a rider's chunk must not fail
 * because the host's own requests filled the window.
 */
export async function processThroughGate(
  session: Pick<BatchSession, 'gate' | 'readings'>,
  api: ApiClient,
  chunkJobId: string,
  model: string | undefined,
  clock: Clock,
): Promise<ChunkProcessed> {
  for (let attempt = 1; ; attempt++) {
    const sentAt = await session.gate.acquire();
    try {
      const answer = await api.processChunk(chunkJobId, model ? { model } : undefined);
      session.gate.answered(sentAt, answer.processing_time_ms);
      return answer;
    } catch (error) {
      if (neverReached(error)) session.gate.unsent(sentAt);
      else session.gate.answered(sentAt); // counted, if at all, by now
      if (!pausedForRateLimit(session, error, attempt, 'process', clock)) throw error;
    }
  }
}

/** Tries at the warm-up before a service that keeps no connection open counts as unreachable. */
const WARM_UP_ATTEMPTS = 3;
const WARM_UP_BACKOFF_MS = 500;

/**
 * One `health` call before the first gated request: it needs no key, costs no
 * credit and counts against no rate window (spec §4.5, §5), and it pays the
 * HTTP client's one-off start-up (connection, parser compilation). Without
 * it the first requests of a run reach the server up to ~80 ms after the gate
 * recorded them, enough to tip a window into a 429. A service that cannot be
 * reached fails here (after two more tries), before anything is sent. What
 * shows the service is there ends the warm-up at once: an answer however
 * garbled (an HTML 502, a body past the cap), or a connection dropped before
 * the answer ended. The batch then goes on, and its own requests retry what needs it:
 * one lost health answer must not cost the whole batch (the fuzz suite found
 * that it did).
 */
async function warmUp(api: ApiClient, clock: Clock): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await api.health();
      return;
    } catch (error) {
      const serviceIsThere =
        error instanceof MalformedResponseError || error instanceof ResponseTooLargeError || (error instanceof TransportError && error.connectionDropped);
      if (serviceIsThere || !(error instanceof TransportError)) return;
      if (attempt >= WARM_UP_ATTEMPTS) throw error;
      await clock.sleep(WARM_UP_BACKOFF_MS * attempt);
    }
  }
}

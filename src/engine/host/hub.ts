import { createServer, type Server, type Socket } from 'node:net';
import { chmod, rm } from 'node:fs/promises';
import type { DocumentOutcome, PlannedDocument, ResultChecker } from '../../batch/batch-types.js';
import type { DocumentTask } from '../../batch/document-task.js';
import { leftUndone } from '../../batch/left-undone.js';
import type { BatchRunner } from '../../batch/runner.js';
import { recheckReused } from '../../checks/recheck.js';
import type { ArrivalPlanner } from '../resume-tasks.js';
import type { ServerJobView } from '../server-job-view.js';
import type { ChunkProcessed } from '../../api/index.js';
import type { SourceRejoin } from '../part-rejoin.js';
import { CommandsFile, commandsFilePath, runningCommands, type Origin } from './commands-file.js';
import { hostSocketPath, readMessages, send, type ClientMessage, type DocumentNews, type HostMessage, type SharedRunTerms } from './protocol.js';
import type { TaskQueue } from './task-queue.js';
import type { ForcedReuse } from '../force-run.js';
import { PRIVATE_FILE_MODE } from '../../store/private-files.js';

/** What the hub needs of the run it feeds, once that run starts. */
export interface HostedRun {
  runner: BatchRunner;
  planner: ArrivalPlanner;
  queue: TaskQueue;
  checker?: ResultChecker;
  /** The task that finishes `jobId` for a `collect` of `owner` (the asking command), or the outcome when nothing is left to do. */
  collectTask(
    jobId: string,
    outDir: string,
    owner: Required<Pick<PlannedDocument, 'origin' | 'askedAs'>>,
  ): Promise<{ task: DocumentTask; rejoin?: SourceRejoin } | { outcome: DocumentOutcome }>;
  /** Told after every finished document (the hosted run checks whether its own work is done). */
  afterFinish(): void;
}

/** What a host does for other commands beyond running their documents. */
export interface HostServices {
  /** Asks the server about jobs through this run's gate (`jobs --refresh` of another command). */
  refresh(jobIds: string[]): Promise<Map<string, ServerJobView>>;
  /** Processes one chunk through this run's gate (`process` of another command). */
  process(chunkJobId: string, model: string | undefined): Promise<ChunkProcessed>;
  /** Begins (or resumes, said in `notice`) the forced run of `command` in this session's journal (a `--force` command riding along). @default none: its documents are forced anew */
  forceRun?(command: string, notice: (message: string) => void): Promise<ForcedReuse<{ force: boolean }>>;
}

/**
 * The host side of "many commands, one client": the command holding the
 * state folder's lock listens on `<stateDir>/host.sock`; other commands
 * submit their documents, which are planned through the host's own
 * ArrivalPlanner (a question under way for one rides along for the other)
 * and fed into the host's one runner (one gate, one job-slot ledger). Each
 * outcome and progress event goes back to the command that submitted it.
 */
export class HostHub {
  private readonly origins = new Map<string, Origin>();
  /** Commands that went away (Ctrl-C or a closed socket): a task only theirs is withdrawn. Ids are not reused within a hub. */
  private readonly gone = new Set<string>();
  private nextOrigin = 1;
  private run: HostedRun | undefined;
  private readonly buffered: ((run: HostedRun) => Promise<void>)[] = [];
  /** Tasks fed to the runner and not known to be done (collect looks for its job among them). */
  readonly live = new Set<DocumentTask>();
  /** Outcomes of these documents also answer a `collect` that found its job under way. */
  private readonly watchers = new Map<PlannedDocument, { origin: string; id: number }[]>();
  /** A part's job collected for another command: its source's result is written again before that command gets its answer (the source's). */
  private readonly rejoins = new Map<PlannedDocument, SourceRejoin>();
  /** The run is draining (handover or Ctrl-C): what it leaves undone is submitted again elsewhere, not reported. */
  private draining = false;
  private readonly commands: CommandsFile;
  private readonly startedAt = Date.now();
  /** The forced run of each command riding along with `--force`, by origin: its documents are planned with it (undefined: it could not be journaled). */
  private readonly forcedRuns = new Map<string, Promise<ForcedReuse<{ force: boolean }> | undefined>>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    private readonly socketPath: string,
    private readonly command: string,
    private readonly terms: SharedRunTerms,
    private readonly services: HostServices,
    stateDir: string,
  ) {
    this.commands = new CommandsFile(commandsFilePath(stateDir), () =>
      runningCommands(this.live, { pid: process.pid, command: this.command, since: this.startedAt }, [...this.origins.values()]),
    );
  }

  /** Listen in the state folder (whose lock the caller holds: a socket left there is stale); undefined when the folder cannot hold a socket. */
  static async start(stateDir: string, command: string, terms: SharedRunTerms, services: HostServices): Promise<HostHub | undefined> {
    const path = hostSocketPath(stateDir);
    await rm(path, { force: true }).catch(() => undefined);
    const server = createServer();
    const hub = new HostHub(server, path, command, terms, services, stateDir);
    server.on('connection', (socket) => hub.accept(socket));
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(path, () => resolve(true));
    });
    if (!listening) return undefined;
    // Made with the umask's mode; the folder (0700) already keeps others out, and its files are 0600 all the same.
    await chmod(path, PRIVATE_FILE_MODE).catch(() => undefined);
    server.unref();
    hub.commands.changed();
    return hub;
  }

  /** The run starts: plan what was submitted before it did. */
  attach(run: HostedRun): void {
    this.run = run;
    for (const submission of this.buffered.splice(0)) void submission(run);
  }

  /** The run drains (handover or Ctrl-C): what it leaves undone of other commands' is theirs to submit again, not reported. */
  drain(): void {
    this.draining = true;
  }

  /** After every finished document: the hosted run checks whether its own work is done. */
  afterFinish(): void {
    this.run?.afterFinish();
  }

  /** Stop hosting: every command still connected is told to take over, and the socket goes. */
  async close(): Promise<void> {
    this.draining = true;
    this.closed = true;
    for (const origin of this.origins.values()) {
      send(origin.socket, { type: 'handover' });
      origin.socket.end();
    }
    // Not waiting for every command to hang up: one that is stopped (SIGSTOP) must not keep the lock held.
    this.server.close();
    await rm(this.socketPath, { force: true }).catch(() => undefined);
    await this.commands.remove();
  }

  /** A finished document: back to the command that asked (and to a `collect` waiting for its job). True when it was a submitted one. */
  finished(outcome: DocumentOutcome, doc: PlannedDocument): boolean {
    const watching = this.watchers.get(doc);
    this.watchers.delete(doc);
    for (const watcher of watching ?? []) this.answer(watcher.origin, watcher.id, outcome);
    if (!doc.origin || doc.askedAs === undefined) return false;
    this.run?.planner.finished(outcome, doc);
    const rejoin = this.rejoins.get(doc);
    this.rejoins.delete(doc);
    const origin = doc.origin;
    const askedAs = doc.askedAs;
    if (rejoin) void rejoin.joined(outcome).then((source) => this.answer(origin, askedAs, source));
    else this.answer(origin, askedAs, outcome);
    return true;
  }

  /** News of a submitted document, to the command that asked for it (an upload only marks it started). */
  tell(
    doc: PlannedDocument,
    news: { type: 'upload' } | DistributiveOmit<Exclude<DocumentNews, { type: 'finished' }>, 'id'> | { type: 'notice'; message: string },
  ): void {
    this.commands.changed();
    const origin = doc.origin === undefined ? undefined : this.origins.get(doc.origin);
    if (!origin || doc.askedAs === undefined) return;
    if (news.type === 'upload') origin.started.add(doc.askedAs);
    else send(origin.socket, { ...news, id: doc.askedAs } as HostMessage);
  }

  private answer(originId: string, id: number, outcome: DocumentOutcome): void {
    const origin = this.origins.get(originId);
    if (!origin || !origin.waiting.has(id)) return;
    // Left undone by a drain: its command submits it again to the next host.
    if (this.draining && (outcome.status === 'interrupted' || outcome.status === 'skipped')) return;
    origin.waiting.delete(id);
    origin.started.delete(id);
    send(origin.socket, { type: 'finished', id, outcome });
    this.commands.changed();
  }

  private accept(socket: Socket): void {
    let origin: Origin | undefined;
    readMessages<ClientMessage>(socket, (message) => {
      if (message.type === 'hello') {
        origin = this.welcome(socket, message);
        return;
      }
      if (!origin) return;
      const from = origin;
      if (message.type === 'force-run') this.forcedRuns.set(from.id, this.beginForceRun(from, message.command));
      else if (message.type === 'end-force-run') void this.endForceRun(from);
      else if (message.type === 'cancel') this.withdraw(from);
      else if (message.type === 'refresh') void this.refresh(from, message.jobIds);
      else if (message.type === 'process') void this.process(from, message.chunkJobId, message.model);
      else if (message.type === 'submit' || message.type === 'collect') this.whenRunning((run) => this.take(run, from, message));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!origin) return;
      this.withdraw(origin);
      this.origins.delete(origin.id);
      this.forcedRuns.delete(origin.id);
      this.commands.changed();
    });
  }

  /** A command riding along with `--force`: its forced run begins, or resumes (told to it), in this session's journal. */
  private beginForceRun(origin: Origin, command: string): Promise<ForcedReuse<{ force: boolean }> | undefined> {
    const notice = (message: string): void => send(origin.socket, { type: 'notice', message });
    // Not journaled: its documents are forced anew (the safe side), and its run is not ended.
    return this.services.forceRun?.(command, notice).catch(() => undefined) ?? Promise.resolve(undefined);
  }

  /** The command's forced run ended with nothing left undone: journaled, then answered (unanswered, the command ends it with the next host). */
  private async endForceRun(origin: Origin): Promise<void> {
    const forced = await this.forcedRuns.get(origin.id);
    if (!forced || this.closed) return;
    try {
      await forced.ended(false);
    } catch {
      return;
    }
    send(origin.socket, { type: 'force-run-ended' });
  }

  private welcome(socket: Socket, hello: Extract<ClientMessage, { type: 'hello' }>): Origin | undefined {
    const differs = (Object.keys(hello.terms) as (keyof SharedRunTerms)[]).filter((key) => this.terms[key] !== hello.terms[key]);
    if (this.draining || differs.length > 0) {
      // Handing over: the command takes part in electing the next host, as the connected ones do.
      send(socket, this.draining ? { type: 'handover' } : { type: 'refused', reason: `the running command uses other settings (${differs.join(', ')})` });
      socket.end();
      return undefined;
    }
    const origin: Origin = {
      id: `c${this.nextOrigin++}`,
      pid: hello.pid,
      command: hello.command,
      since: Date.now(),
      socket,
      waiting: new Set(),
      started: new Set(),
    };
    this.origins.set(origin.id, origin);
    send(socket, { type: 'welcome', hostPid: process.pid } satisfies HostMessage);
    this.commands.changed();
    return origin;
  }

  private async refresh(origin: Origin, jobIds: string[]): Promise<void> {
    let views = new Map<string, ServerJobView>();
    try {
      views = await this.services.refresh(jobIds);
    } catch (error) {
      send(origin.socket, { type: 'notice', message: `the server could not be asked: ${error instanceof Error ? error.message : String(error)}` });
    }
    send(origin.socket, { type: 'refreshed', views: [...views] });
  }

  private async process(origin: Origin, chunkJobId: string, model: string | undefined): Promise<void> {
    // The host's claim on that job comes first: two processes must not race for its chunks.
    const busy = [...this.live].find((task) => task.phase !== 'done' && task.job?.chunks.some((chunk) => chunk.jobId === chunkJobId));
    if (busy) {
      send(origin.socket, {
        type: 'request-failed',
        code: 'chunk_in_progress',
        message: `chunk ${chunkJobId} belongs to job ${busy.job?.parentJobId ?? ''} (${busy.doc.displayPath}), which the running command (process ${process.pid}) is finishing; nothing was sent`,
      });
      return;
    }
    try {
      send(origin.socket, { type: 'processed', answer: await this.services.process(chunkJobId, model) });
    } catch (error) {
      const failure = error as { code?: unknown; status?: unknown; message?: unknown };
      send(origin.socket, {
        type: 'request-failed',
        code: typeof failure.code === 'string' ? failure.code : 'internal_error',
        message: typeof failure.message === 'string' ? failure.message : String(error),
        ...(typeof failure.status === 'number' ? { status: failure.status } : {}),
      });
    }
  }

  private whenRunning(work: (run: HostedRun) => Promise<void>): void {
    if (this.run) void work(this.run);
    else this.buffered.push(work);
  }

  private async take(run: HostedRun, origin: Origin, message: Extract<ClientMessage, { type: 'submit' | 'collect' }>): Promise<void> {
    // Hung up before its turn (a submission buffered before the run attached): nothing to plan, nobody to answer.
    // One that cancelled (Ctrl-C) is still connected and waits for an outcome of each: planned, then dropped with one.
    if (this.gone.has(origin.id) && !this.origins.has(origin.id)) return;
    try {
      if (message.type === 'collect') return await this.collect(run, origin, message);
      const documents = message.documents.map(({ id, ...doc }) => {
        origin.waiting.add(id);
        return { ...doc, origin: origin.id, askedAs: id };
      });
      this.commands.changed();
      // Planned as the command would plan them alone: what its resumed forced run extracted is kept.
      const forcedSince = (await this.forcedRuns.get(origin.id))?.reuse.forcedSince;
      const arrival = await run.planner.plan(documents, forcedSince === undefined ? message.reuse : { ...message.reuse, forcedSince });
      const reused = run.checker ? await recheckReused(arrival.reused, run.checker) : arrival.reused;
      // Display paths are unique within one command's submission.
      const byFile = new Map(documents.map((doc) => [doc.displayPath, doc]));
      for (const outcome of reused) {
        const doc = byFile.get(outcome.file);
        if (doc) this.finished(outcome, doc);
      }
      this.feedSubmitted(run, arrival.tasks);
    } catch (error) {
      send(origin.socket, { type: 'notice', message: `the host could not plan these documents: ${error instanceof Error ? error.message : String(error)}` });
      origin.socket.end(); // the command submits them again, to itself if need be
    }
  }

  private async collect(run: HostedRun, origin: Origin, message: Extract<ClientMessage, { type: 'collect' }>): Promise<void> {
    origin.waiting.add(message.id);
    const busy = [...this.live].find(
      (task) => task.phase !== 'done' && (task.job?.parentJobId === message.jobId || task.job?.chunks.some((chunk) => chunk.jobId === message.jobId)),
    );
    if (busy) {
      send(origin.socket, {
        type: 'notice',
        message: `job ${message.jobId} is being finished by the running command (process ${process.pid}): waiting for it`,
      });
      this.watchers.set(busy.doc, [...(this.watchers.get(busy.doc) ?? []), { origin: origin.id, id: message.id }]);
      return;
    }
    const found = await run.collectTask(message.jobId, message.outDir, { origin: origin.id, askedAs: message.id });
    if ('outcome' in found) {
      this.answer(origin.id, message.id, found.outcome);
      return;
    }
    if (found.task.job) run.planner.claimJob(found.task.job.parentJobId);
    if (found.rejoin) this.rejoins.set(found.task.doc, found.rejoin);
    this.feedSubmitted(run, [found.task]);
  }

  /**
   * Tasks planned for a submission, into the runner. Planning awaits the
   * disk: a command that went away meanwhile was withdrawn from the runner
   * before these were in it, so what would be only for commands gone, and
   * has not started, is dropped here, finished as withdrawn (the planner
   * then no longer counts it as leading its question).
   */
  private feedSubmitted(run: HostedRun, tasks: DocumentTask[]): void {
    const kept: DocumentTask[] = [];
    for (const task of tasks) {
      if (!notStarted(task) || !this.onlyForGone(task)) {
        kept.push(task);
        continue;
      }
      // The outcome the runner gives a task it withdraws.
      const outcome = leftUndone(task, { interrupted: true, fatal: false, stoppedBy: undefined });
      task.finish(outcome);
      for (const doc of [task.doc, ...task.copies]) this.finished(outcome, doc);
    }
    this.feed(run, kept);
  }

  /** Every command the task is for has gone (a document of the host's own is for a command still here). */
  private onlyForGone(task: DocumentTask): boolean {
    return [task.doc, ...task.copies].every((doc) => doc.origin !== undefined && this.gone.has(doc.origin));
  }

  /** Tasks into the runner (false once it takes no more: their commands submit them again after the handover). */
  feed(run: HostedRun, tasks: DocumentTask[]): void {
    for (const task of tasks) this.live.add(task);
    for (const task of this.live) if (task.phase === 'done') this.live.delete(task);
    run.queue.push(tasks);
  }

  /**
   * A command went away (Ctrl-C, a crash): its documents that have not
   * started are dropped, unless a command still here rides on them. A task
   * is dropped once every command it is for has gone, whichever of them
   * leads it: an identical file of a command that went first must not keep
   * a task sent and paid for with nobody left to receive it.
   */
  private withdraw(origin: Origin): void {
    this.gone.add(origin.id);
    this.run?.runner.withdraw((task) => [task.doc, ...task.copies].some((doc) => doc.origin === origin.id) && this.onlyForGone(task));
  }
}

/** Nothing of it is under way: no upload being prepared or sent, no job (what the runner's withdraw also leaves alone). */
function notStarted(task: DocumentTask): boolean {
  return task.phase === 'queued' && !task.prepared && !task.job;
}

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

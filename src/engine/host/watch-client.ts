import type { Socket } from 'node:net';
import type { PlannedDocument } from '../../batch/batch-types.js';
import type { HotFolder } from '../../files/hot-folder.js';
import { toDisplayPath } from '../../util/display-path.js';
import type { Clock } from '../../util/clock.js';
import { planFiles } from '../plan-documents.js';
import type { WatchOptions } from '../watch.js';
import type { WatchEvents, WatchReport } from '../watch-types.js';
import { WatchMoves } from '../watch-moves.js';
import { arrivalsOf, startWatchedFolder } from '../watched-folder.js';
import { WatchRecord, WatchTally } from '../watch-tally.js';
import { PartResults } from '../parts.js';
import { writeFileAtomically } from '../../store/atomic-write.js';
import { HostConnection, showNews, type ClientIdentity } from './host-connection.js';
import type { SubmissionEnd } from './one-client.js';

/**
 * `watch` while another command hosts the state folder: this command
 * watches its folder, checks each settled arrival itself (preflight), and
 * submits the documents to the host; outcomes come back to its own display,
 * counts and moves. Ends at Ctrl-C (the host drops what has not started;
 * what is under way is waited for), or when the host hands over or goes
 * away ('again': the folder is watched anew, as host or client, and what is
 * already answered costs nothing).
 */
export function watchThroughHost(
  socket: Socket,
  who: ClientIdentity,
  deps: {
    events: WatchEvents;
    clock: Clock;
    /** The run's `store_db`, a part of each question: the sources sent in parts get their one result here. */
    storeDb: boolean;
  },
  options: WatchOptions,
  stop?: AbortSignal,
): Promise<SubmissionEnd<WatchReport>> {
  return new Promise((resolve) => {
    const waiting = new Map<number, PlannedDocument>();
    let nextId = 0;
    let credits = 0;
    let ended = false;
    let stopping = false;
    // Files being checked: a stop ends their checks (interrupted), which are reported before the command ends.
    let planning = false;
    let folder: HotFolder | undefined;
    const notice = (message: string): void => deps.events.notice?.(message);
    const moves = new WatchMoves({ root: options.root, ...options.moves }, options.outDir, deps.events);
    // This command's PDFs past the service's limits are sent as parts; it writes each source's one result itself, as an extract riding along does.
    const parts = new PartResults([], deps.storeDb, writeFileAtomically, () => deps.clock.now(), notice, false);
    const tally = new WatchTally(deps.events, moves, { finished: () => undefined }, options.record ?? new WatchRecord(options.cwd), parts);
    const report = (): WatchReport => tally.record.report({ outcomes: [], requests: 0, credits, interrupted: stop?.aborted === true, strayJobs: [] });
    // A forced watch names its forced run to the host, which journals it (begun, resumed, ended) as a watch alone would.
    const forceCommand = options.reuse.force ? options.forceCommand : undefined;
    let forceRunAnswered: (() => void) | undefined;
    const end = async (how: 'done' | { again: true } | { refused: string }): Promise<void> => {
      if (ended) return;
      ended = true;
      stop?.removeEventListener('abort', onStop);
      // Stopped with none of its documents left undone: its forced run has ended (unanswered when the host goes first: then it stays resumable).
      if (how === 'done' && forceCommand !== undefined && !connection.ended && report().counts.interrupted === 0) {
        const answered = new Promise<void>((resolve) => (forceRunAnswered = resolve));
        connection.send({ type: 'end-force-run' });
        await answered;
      }
      connection.close();
      await folder?.close();
      await tally.settled();
      await moves.drain();
      resolve(how === 'done' ? { done: report() } : how);
    };
    const onStop = (): void => {
      stopping = true;
      connection.send({ type: 'cancel' });
      void folder?.close();
      if (waiting.size === 0 && !planning) void end('done');
    };
    const submitArrivals = async (watched: HotFolder): Promise<void> => {
      for await (const paths of arrivalsOf(watched, options)) {
        if (ended || stopping) return;
        const inputs = paths.map((path) => ({ path, displayPath: toDisplayPath(path, options.cwd) }));
        for (const input of inputs) tally.arrived(input.displayPath, input.path);
        planning = true;
        // A stop ends the page counts under way, so a costly PDF cannot hold SIGTERM back for its whole budget.
        const planned = await planFiles(inputs, options.root, {
          ...options.plan,
          outDir: options.outDir,
          confinedTo: options.root,
          ...(stop ? { signal: stop } : {}),
        }).finally(() => (planning = false));
        for (const rejected of planned.rejected) {
          if (rejected.error?.code === 'file_not_found') tally.vanished(rejected.file);
          else tally.documentFinished(rejected);
        }
        // The host was told to cancel: what was checked meanwhile is not sent, and stays for the next watch.
        if (stopping) {
          if (waiting.size === 0) void end('done');
          return;
        }
        tally.planned(planned.documents);
        const documents = planned.documents.map((doc) => {
          const id = nextId++;
          waiting.set(id, doc);
          return { ...doc, id };
        });
        if (documents.length > 0) connection.send({ type: 'submit', documents, reuse: options.reuse });
      }
    };
    const start = async (): Promise<void> => {
      folder = await startWatchedFolder(options, deps.clock, { onError: notice, onSettling: (count) => tally.settlingNow(count) });
      if (ended) return void folder.close();
      deps.events.watching?.();
      await submitArrivals(folder);
    };
    const connection = new HostConnection(socket, who, {
      welcome: () => {
        if (forceCommand !== undefined) connection.send({ type: 'force-run', command: forceCommand });
        if (stop?.aborted) return void end('done');
        stop?.addEventListener('abort', onStop, { once: true });
        start().catch((error: unknown) => {
          notice(`the folder cannot be watched: ${error instanceof Error ? error.message : String(error)}`);
          void end({ again: true });
        });
      },
      ended: (how) => {
        forceRunAnswered?.();
        void end('refused' in how ? how : stopping ? 'done' : { again: true });
      },
      forceRunEnded: () => forceRunAnswered?.(),
      notice: (message) => notice(message),
      news: (news) => {
        if (news.type !== 'finished') return showNews(tally.display, waiting.get(news.id), news);
        if (!waiting.delete(news.id)) return;
        credits += news.outcome.credits;
        tally.documentFinished(news.outcome);
        if (stopping && waiting.size === 0 && !planning) void end('done');
      },
    });
  });
}

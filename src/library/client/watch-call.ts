/**
 * The client's `watch`: a folder watched until the run is cancelled, each
 * file that settles in it extracted as `extract` extracts its inputs (parts,
 * reuse, checks, force), hosting the state folder or riding along on the
 * command that holds it; its usage recorded once at its end.
 */
import { resolve } from 'node:path';
import type { WatchEvents, WatchReport } from '../../engine/watch-types.js';
import { stateFolderUsage } from '../../engine/usage-recorder.js';
import { outputFolderProblem } from '../../engine/writable-output-folder.js';
import { DEFAULT_PASS_MS } from '../../files/hot-folder.js';
import { DEFAULT_SETTLE_MS } from '../../files/settled-files.js';
import { accountOf, runDocuments } from '../one-client-run.js';
import { watchFolderRun } from '../watch-run.js';
import type { ClientSettings } from './client-options.js';
import type { ExtractionOptions } from './extract-options.js';
import { askingCommand, plannedExtraction } from './extract-run.js';
import { InvalidOptionError } from './invalid-option-error.js';
import { forceIdentity, runAccess, serviceClient, sharedTerms } from './run-access.js';
import { isObjectUri } from '../../util/object-uri.js';
import { DEFAULT_OBJECT_POLL_MS, objectWatchOf, type ObjectWatch } from './object-watch.js';

/** Options of one {@link DocExtract.watch}: an extraction's, and the folder's own. */
export interface WatchOptions extends Omit<
  ExtractionOptions,
  'allowedFolders' | 'onPlanned' | 'onFound' | 'listed' | 'waiting' | 'onResult' | 'keepOutcomes' | 'events' | 'display'
> {
  /** How long a file must stay unchanged (size and time) before it is taken, in ms. @default {@link DEFAULT_SETTLE_MS} (setting `settle`) */
  settleMs?: number;
  /** How often the whole folder is listed again, besides the file system's notices, in ms. @default {@link DEFAULT_PASS_MS} (setting `rescan`) */
  rescanMs?: number;
  /** List the folder this often instead of relying on the file system's notices (network shares), in ms. An `s3://` folder is always listed. @default none; 60000 for `s3://` */
  pollMs?: number;
  /** Move each source that completed here (below the folder, its path kept); an `s3://` folder's objects to an `s3://` folder. @default left where it is */
  moveDone?: string;
  /** Move each source that failed here. @default left where it is */
  moveFailed?: string;
  /** Progress as work moves and the folder's counts change; outcomes come from the run itself. */
  events?: Partial<Omit<WatchEvents, 'documentFinished'>>;
  /** A display of the watch, made once there is something to show, told of every event (outcomes included); given, the iteration yields none and `events` is not told. */
  display?: () => WatchEvents | Promise<WatchEvents>;
  /** @internal Resolves once the reader of the watch's lines has room: no file is taken until then. */
  outputRoom?: () => Promise<void>;
}

/** Watches `folder` until `stop`; each finished document's outcome goes to `finished`. */
export async function watchRun(
  client: ClientSettings,
  folder: string,
  options: WatchOptions,
  stop: AbortSignal,
  events: () => Promise<WatchEvents>,
): Promise<WatchReport> {
  // `s3://…` as the folder, a move target or the output: checked and opened here, the SDK loaded only then.
  const objects = await objectWatchOf(client, folder, options);
  try {
    return await watchOpened(client, folder, options, stop, events, objects);
  } finally {
    objects?.close();
  }
}

async function watchOpened(
  client: ClientSettings,
  folder: string,
  options: WatchOptions,
  stop: AbortSignal,
  events: () => Promise<WatchEvents>,
  objects: ObjectWatch | undefined,
): Promise<WatchReport> {
  const { inbox, output } = objects ?? {};
  const root = inbox ? inbox.root : resolve(client.cwd, folder);
  const planned = plannedExtraction(client, output ? { ...options, out: output.mirrorDir } : options);
  const { outDir, models, pages, run } = planned;
  const moves = {
    ...(options.moveDone !== undefined && !isObjectUri(options.moveDone) ? { done: resolve(client.cwd, options.moveDone) } : {}),
    ...(options.moveFailed !== undefined && !isObjectUri(options.moveFailed) ? { failed: resolve(client.cwd, options.moveFailed) } : {}),
  };
  const blocked = await outputFolderProblem(outDir);
  // A result is paid for before it is written: watch nothing whose results could not be saved.
  if (blocked) throw new InvalidOptionError('out', `cannot write results to ${outDir} (${blocked}); fix the output folder, or choose another`);
  const notice = options.events?.notice ?? client.notice;
  const startedAt = client.clock.now();
  const watch = await watchFolderRun({
    root,
    cwd: client.cwd,
    outDir,
    settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
    passMs: options.rescanMs ?? DEFAULT_PASS_MS,
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    moves,
    ...(inbox && objects ? { objects: { inbox, pollMs: options.pollMs ?? DEFAULT_OBJECT_POLL_MS, moves: objects.moves } } : {}),
    exclude: [client.stateDir],
    plan: { outDir, windows: client.windows, ttlMs: run.ttlMs, marginMs: run.marginMs, models, pages, ...(client.debug ? { debug: client.debug } : {}) },
    reuse: { force: options.force === true, dedupe: options.dedupe !== false },
    // The same watch again resumes an interrupted forced one.
    forceCommand: forceIdentity(client, 'watch', [folder], outDir),
    ...(options.outputRoom ? { outputRoom: options.outputRoom } : {}),
    run,
    // Another command hosts the state folder: the document types are checked (free) before arrivals are submitted to it.
    checkTypesWith: async () => ({ api: await serviceClient(client), notice: (message) => notice?.(message) }),
    clock: client.clock,
  });
  const access = runAccess(client, run.ttlMs, notice);
  const checker = options.checker ? { checker: options.checker } : {};
  const report = await runDocuments<WatchReport, WatchEvents>({
    access,
    command: askingCommand(client),
    terms: sharedTerms(client, run),
    events,
    signal: stop,
    // An s3:// output is put by this command's writer: each result at its key, then in the mirror.
    host: (deps) => watch.host({ ...deps, ...checker, ...(output ? { writeResult: output.writer(deps.writeResult) } : {}) }, stop),
    // Objects are listed, and results put, by the command that hosts: an s3:// watch waits for the state folder rather than riding along.
    ...(objects ? {} : { ride: watch.ride }),
    waiting: (message) => notice?.(message),
  });
  const { command, profile } = client.origin;
  const usage = { account: accountOf(access), profile: profile ?? 'default', command, startedAtMs: startedAt, finishedAtMs: client.clock.now() };
  await stateFolderUsage(client.stateDir).record(report.usage.record({ ...usage, requests: report.requests, cwd: client.cwd })); // for `docextract usage`
  if (report.fatal) throw report.fatal;
  return report;
}

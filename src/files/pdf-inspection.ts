/**
 * Inspects a PDF off the main thread, within a budget: counts its pages
 * (preflight), or checks its structure before pdf-lib reads it (pdf-cut.ts).
 * Either is synchronous work on an untrusted file that a 500 KB file can stretch to hours;
 * run on the main thread it would stop `watch` taking other files and keep
 * SIGTERM from being heard. Here it runs in a worker thread: the budget
 * (bytes inflated, time) stops it from inside, terminate() stops it from
 * outside when its time is up or the caller aborts.
 *
 * Workers are kept for the next file (starting one costs tens of
 * milliseconds, and a run may count 10,000 files); an idle one does not keep
 * the process alive. The single executable has no worker file beside it: it
 * starts the worker from the code bundled into it. Where no worker can be
 * started at all, the count runs in-thread, still within its budget.
 */
import { availableParallelism } from 'node:os';
import { isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { BUNDLED_WORKER_SOURCE } from './pdf-inspection-worker-source.js';
import { countPdfPages } from './pdf-page-count.js';
import { checkPdfStructure, UncheckedStream } from './pdf-structure.js';
import {
  DEFAULT_INSPECTION_LIMITS,
  InspectionBudget,
  InspectionBudgetExceeded,
  MAX_STREAM_BYTES,
  type BudgetKind,
  type InspectionLimits,
} from './pdf/inspection-budget.js';

/** 'pages': count them (undefined when unsure); 'structure': decode every stream pdf-lib will decode, once, as it will. */
export type InspectionTask = 'pages' | 'structure';

/** Why a file is too costly to inspect: a budget spent, the thread dead, or a stream pdf-lib would decode that the check could not ('unchecked_stream'). */
export type TooComplexReason = BudgetKind | 'died' | 'unchecked_stream';

export interface WorkerQuestion {
  task: InspectionTask;
  bytes: Uint8Array;
  limits: InspectionLimits;
}

/** What the worker answers ('structure' answers `counted` with no pages, or `encrypted`). `problem` says which stream was unchecked. */
export type WorkerAnswer =
  { kind: 'counted'; pages: number | undefined } | { kind: 'encrypted' } | { kind: 'too_complex'; budget: TooComplexReason; problem?: string };

export type PdfInspection = WorkerAnswer | { kind: 'aborted' };

export interface InspectOptions {
  /** @default DEFAULT_INSPECTION_LIMITS */
  limits?: InspectionLimits;
  /** Ends the count at once (the worker is terminated); the answer is then `aborted`. */
  signal?: AbortSignal;
  /**
   * Hand `bytes` over to the worker instead of copying them (a 1 GiB PDF
   * to be cut is not copied): the caller's buffer is then unusable. @default false
   */
  transfer?: boolean;
}

/** Past the budget's own time, the worker has this long to say so before it is terminated (its clock is checked between steps, not inside one inflate). */
const TERMINATE_GRACE_MS = 2_000;
/** Counts at once: a count is CPU-bound, and the machine has other work (hashing, uploads). */
const MAX_WORKERS = Math.max(1, Math.min(4, availableParallelism()));

const idle: Worker[] = [];
const waiting: (() => void)[] = [];
let busy = 0;
/** Set once a worker failed to start: counts then run in-thread. */
let workersUnavailable = isSea() && BUNDLED_WORKER_SOURCE === undefined;

/** A page count's answer: only the structure check answers `encrypted`. */
export type PageInspection = Exclude<PdfInspection, { kind: 'encrypted' }>;

export async function inspectPdfPages(bytes: Uint8Array, options: InspectOptions = {}): Promise<PageInspection> {
  const answer = await inspectPdf('pages', bytes, options);
  return answer.kind === 'encrypted' ? { kind: 'counted', pages: undefined } : answer;
}

export async function inspectPdf(task: InspectionTask, bytes: Uint8Array, options: InspectOptions = {}): Promise<PdfInspection> {
  const limits = options.limits ?? DEFAULT_INSPECTION_LIMITS;
  if (options.signal?.aborted) return { kind: 'aborted' };
  if (workersUnavailable) return answerInThread(task, bytes, limits);
  while (busy >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  busy += 1;
  let worker: Worker | undefined;
  try {
    if (options.signal?.aborted) return { kind: 'aborted' };
    worker = idle.pop() ?? (await startWorker());
    if (worker === undefined) return answerInThread(task, bytes, limits);
    // Starting a worker takes a moment; an abort meanwhile fires no event that ask could still hear.
    if (options.signal?.aborted) return { kind: 'aborted' };
    const answer = await ask(worker, { task, bytes, limits }, options);
    if (answer.kind === 'counted' || answer.kind === 'too_complex' || answer.kind === 'encrypted') return answer;
    worker = undefined; // terminated, or dead
    if (answer.kind === 'timed_out') return { kind: 'too_complex', budget: 'time' };
    // A worker that died (out of memory: nothing else is thrown out of it) is refused like a file past
    // its budget, not sent uncounted nor given to pdf-lib.
    return answer.kind === 'aborted' ? answer : { kind: 'too_complex', budget: 'died' };
  } finally {
    if (worker !== undefined) {
      worker.unref();
      idle.push(worker);
    }
    busy -= 1;
    waiting.shift()?.();
  }
}

/**
 * Ends the workers waiting for a next file, once the caller knows none is
 * coming (the last slice of a batch is checked). A process that exits with
 * workers alive tears each down at its exit, after its last request: 100 to
 * 200 ms on a busy 2-core machine (bench section 1). A later inspection
 * starts one again.
 */
export function endIdleInspectionWorkers(): void {
  for (const worker of idle.splice(0)) void worker.terminate();
}

/** Workers waiting for a next file. */
export function idleInspectionWorkers(): number {
  return idle.length;
}

/** The inspection itself, synchronous: run by the worker, or in-thread where no worker can start. Throws InspectionBudgetExceeded, UncheckedStream. */
export function inspectInThread(task: InspectionTask, bytes: Uint8Array, limits: InspectionLimits): WorkerAnswer {
  const budget = new InspectionBudget(limits);
  if (task === 'pages') return { kind: 'counted', pages: countPdfPages(bytes, budget) };
  return checkPdfStructure(bytes, budget).encrypted ? { kind: 'encrypted' } : { kind: 'counted', pages: undefined };
}

/** The answer for what inspectInThread threw, or undefined for anything else. */
export function refusalFor(error: unknown): WorkerAnswer | undefined {
  if (error instanceof InspectionBudgetExceeded) return { kind: 'too_complex', budget: error.kind };
  if (error instanceof UncheckedStream) return { kind: 'too_complex', budget: 'unchecked_stream', problem: error.message };
  return undefined;
}

function answerInThread(task: InspectionTask, bytes: Uint8Array, limits: InspectionLimits): PdfInspection {
  try {
    return inspectInThread(task, bytes, limits);
  } catch (error) {
    const refusal = refusalFor(error);
    if (refusal !== undefined) return refusal;
    throw error;
  }
}

/** The words of `pdf_too_complex`, for preflight's page count and for the check before pdf-lib reads a file. */
export function tooComplexMessage(
  name: string,
  task: InspectionTask,
  budget: TooComplexReason,
  limits: InspectionLimits = DEFAULT_INSPECTION_LIMITS,
  problem?: string,
): string {
  const spent = {
    time: `took longer than ${limits.timeMs / 1000} s`,
    died: 'stopped the thread doing it (out of memory)',
    inflated_bytes: `inflated more than ${megabytes(limits.inflatedBytes)} MB of compressed data`,
    stream_bytes: `met a stream that inflates past ${megabytes(MAX_STREAM_BYTES)} MB`,
    unchecked_stream: `found that ${problem ?? 'a stream pdf-lib would decode'} (so what it costs is unknown)`,
  }[budget];
  const what = task === 'pages' ? 'counting its pages' : 'checking it before its pages are cut out';
  const refused = task === 'pages' ? 'refused (its pages, and so its credits, are unknown)' : 'refused';
  return `${name}: ${what} ${spent}, past what docextract spends checking one file, so it is ${refused}; rewrite it first, e.g. qpdf --object-streams=disable in.pdf out.pdf, and extract the rewritten file`;
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** A worker once it runs; undefined when none can be started (then none is tried again). */
async function startWorker(): Promise<Worker | undefined> {
  try {
    const worker = isSea() && BUNDLED_WORKER_SOURCE !== undefined ? new Worker(BUNDLED_WORKER_SOURCE, { eval: true }) : new Worker(workerUrl());
    await new Promise<void>((resolve, reject) => {
      worker.once('online', resolve);
      worker.once('error', reject);
    });
    worker.removeAllListeners('error');
    // An idle worker that dies is let go of (and an 'error' with no listener would end the process).
    const forget = (): void => {
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
    };
    worker.on('error', forget);
    worker.on('exit', forget);
    return worker;
  } catch {
    workersUnavailable = true;
    return undefined;
  }
}

/**
 * The compiled worker beside this module. Under vitest this module is the
 * TypeScript source, which Node cannot start as a worker: the tests' global
 * set-up builds dist/, whose copy is used.
 */
function workerUrl(): URL {
  const url = import.meta.url;
  return url.endsWith('.ts') ? new URL('../../dist/files/pdf-inspection-worker.js', url) : new URL('./pdf-inspection-worker.js', url);
}

type Asked = WorkerAnswer | { kind: 'aborted' } | { kind: 'timed_out' } | { kind: 'died' };

function ask(worker: Worker, question: WorkerQuestion, options: InspectOptions): Promise<Asked> {
  const { bytes, limits } = question;
  worker.ref();
  return new Promise<Asked>((resolve) => {
    const finish = (answer: Asked): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (answer.kind === 'aborted' || answer.kind === 'timed_out') void worker.terminate();
      resolve(answer);
    };
    const onMessage = (answer: WorkerAnswer): void => finish(answer);
    const onAbort = (): void => finish({ kind: 'aborted' });
    const onError = (): void => finish({ kind: 'died' });
    const onExit = (): void => finish({ kind: 'died' });
    const timer = setTimeout(() => finish({ kind: 'timed_out' }), limits.timeMs + TERMINATE_GRACE_MS);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    const transferable = options.transfer === true && ownsWholeBuffer(bytes) ? [bytes.buffer as ArrayBuffer] : [];
    worker.postMessage(question, transferable);
  });
}

/** Only a view of a whole, unshared ArrayBuffer can be handed over (a small Buffer may be a slice of Node's shared pool). */
function ownsWholeBuffer(bytes: Uint8Array): boolean {
  return bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

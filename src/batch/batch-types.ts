import type { ResultChecks } from './result-file.js';

/** A file that passed preflight and is ready to schedule. */
export interface PlannedDocument {
  path: string;
  displayPath: string;
  sha256: string;
  size: number;
  type: 'pdf' | 'jpeg' | 'png';
  contentType: string;
  /** undefined: a PDF we could not count; the server's status code decides sync or split. */
  pages: number | undefined;
  output: string;
  /** The template to send, normalised; undefined leaves it to the service (invoice). */
  model?: string;
  /** The command that asked for it, when several share one scheduler (see features/host); uploads take turns between origins. @default "" (this process) */
  origin?: string;
}

export type DocumentStatus = 'complete' | 'partial' | 'failed' | 'skipped' | 'interrupted';

/** One line per input, as printed by --json. */
export interface DocumentOutcome {
  file: string;
  status: DocumentStatus;
  pages: number | null;
  model: string | null;
  output: string | null;
  job_id: string | null;
  extraction_id: string | null;
  warnings: string[];
  data?: unknown;
  /** Why the document did not complete: a code, a plain message, and (where the reader is advised what to do) the facts to word that advice with. */
  error?: OutcomeError;
  missing_pages?: number[];
  credits: number;
  /** For interrupted jobs: when the server forgets them. */
  expires_at?: string;
  /** Set when an earlier answer was reused instead of sending: why it answers this question. */
  reused?: string;
  /** Credits that reuse saved (what the reused result cost when it was made). */
  saved_credits?: number;
  /** The result's data against the schema of its document type, when one applies. */
  checks?: ResultChecks;
}

/** Checks a result's data the moment it arrives, locally (no request); see src/features/checks/. */
export interface ResultChecker {
  /** The verdict on `data` for `documentType` (normalised), or undefined when no schema applies to that type. */
  check(documentType: string, data: unknown): ResultChecks | undefined;
}

/** Why a document did not complete. */
export interface OutcomeError {
  /** The service's error code, or docextract's own (`file_changed`, `partial`, `too_many_open_jobs`, ...). */
  code: string;
  /** What happened, in plain words that name no command (a CLI or an agent adds its own advice from `details`). */
  message: string;
  details?: OutcomeDetails;
}

/**
 * The facts behind an outcome that a consumer words as advice: data, never
 * words, so the CLI says "docextract collect <id>" and a library caller
 * something else.
 */
export type OutcomeDetails =
  /** The document's job is open on the server until `expires_at`: finishing it (running again, or collecting it) costs no new upload. */
  | { kind: 'job_open'; job_id: string; expires_at: string }
  /** No page of the job could be extracted: no result was written, and the job stays open (not finalized) until `expires_at` so its chunks can be tried again. */
  | { kind: 'job_kept_open'; job_id: string; expires_at: string }
  /** Pages still missing after every collect round; the job stays open (not finalized) so they can be tried again. */
  | { kind: 'pages_missing'; job_id: string; expires_at: string; missing_pages: number[]; collect_rounds: number }
  /** No job slot came free within the run's slot wait; `held_by_others` slots were held by jobs outside the run. */
  | { kind: 'slot_wait_over'; slot_wait_ms: number; held_by_others: number }
  /** The run's uploads stopped (a budget, the credits, a halt) before this document was sent. */
  | { kind: 'uploads_stopped'; stopped_by: string }
  /** A synchronous extraction failed; `charged` credits were spent; it may be retried once (retryFailed). */
  | { kind: 'extraction_failed'; charged: number }
  /** The job was lost and its source is unknown to this run: extract the file again to finish it. */
  | { kind: 'source_unknown' }
  /** maxCredits would be passed by this document. */
  | { kind: 'max_credits'; max_credits: number; pages: number | undefined };

/** Tuning of one run; every field has a CLI flag or config key. */
export interface RunSettings {
  /** Most requests in flight at once; below it, the windows' rate x measured answer times decide (InFlightBudget). @default 64 */
  concurrency: number;
  /** Open multi-page jobs per key. @default 5 */
  openJobCap: number;
  /** Job lifetime after the split. @default 2 h */
  ttlMs: number;
  /** Finish every job this long before it expires. @default 10% of the TTL, at most 10 min */
  marginMs: number;
  /** Call result with finalize=true once the result is on disk. @default true */
  finalize: boolean;
  /** Ask the service to store results (store_db). @default false */
  storeDb: boolean;
  /** Stop admitting files before this many credits would be spent. */
  maxCredits?: number;
  /** Retry a synchronous extraction_failed (already charged). @default false */
  retryFailed: boolean;
  /** Collect rounds before a job is reported partial. @default 4 */
  maxCollectRounds: number;
  /** Attempts per request before giving up. @default 8 */
  maxAttempts: number;
  /** Tries at a chunk whose extraction keeps failing (422), over every collect round; its pages are then reported missing. @default 3 */
  chunkTries?: number;
  /** Backoff base for retries. @default 1000 */
  retryBaseMs: number;
  /** Backoff cap for retries. @default 60_000 */
  retryMaxMs: number;
  /** How long split documents may wait while jobs outside this run hold every job slot; 0: not at all. @default 1_800_000 (30 min) */
  slotWaitMs: number;
  /** Pause after 503 server_busy. @default 120_000 */
  busyPauseMs: number;
  /** Wait after 409 chunk_in_progress. @default 10_000 */
  conflictDelayMs: number;
}

/** What the runner tells the display as work moves. */
export interface BatchEvents {
  /** An upload of the document is being sent (again, after a retry). */
  uploadStarted?(doc: PlannedDocument): void;
  documentStarted?(doc: PlannedDocument, chunksTotal: number | null): void;
  chunkDone?(doc: PlannedDocument, chunksDone: number, chunksTotal: number): void;
  documentFinished(outcome: DocumentOutcome): void;
  requestSent?(endpoint: string): void;
  creditsCharged?(credits: number): void;
  waiting?(untilMs: number, reason: string): void;
  /** The scheduler's lower bound for the time the unfinished documents still need (at most once a second). */
  timeLeft?(boundMs: number): void;
  /** Job slots held by jobs outside this run (0: none any more), and when the next probe goes. */
  slotsHeld?(held: number, nextTryAt: number | undefined): void;
  notice?(message: string): void;
  /** A chunk's extraction failed: it is tried again at `retryAt`, or (without one) its pages will be reported missing. */
  chunkFailed?(failure: ChunkFailure): void;
  /** A request reached no server (no connection was made): it is not counted, and the service is unreachable since `since`. */
  requestUnreached?(endpoint: string): void;
  /** A request's answer (or failure) came back. */
  requestAnswered?(endpoint: string): void;
  /** The service cannot be reached (first said at `since`), or can again (`since` undefined, after `downMs`). */
  reachability?(change: { reachable: false; since: number; detail: string } | { reachable: true; downMs: number }): void;
}

/** One failed try at a chunk, as the display is told of it. */
export interface ChunkFailure {
  file: string;
  /** The chunk's page range, e.g. "4-6". */
  pages: string;
  code: string;
  /** Tries so far that failed, and how many it gets. */
  failures: number;
  tries: number;
  /** When it is tried again; absent once it has been given up. */
  retryAt?: number;
}

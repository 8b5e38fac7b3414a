import type { ResultChecks } from './result-file.js';

/** Where a part belongs: the source's one result file, which lists every part once all are finished. */
export interface PartOf {
  /** The source's result file. */
  output: string;
  /** The source as the user named it. */
  displayPath: string;
  /** This part's place (0-based) among `count`. */
  index: number;
  count: number;
  /** Every page of the source that its parts send, in order (the whole document, or a --pages selection). */
  pages: number[];
}

/** A file that passed preflight and is ready to schedule. */
export interface PlannedDocument {
  /** Absolute path, as reached (symbolic links not resolved). */
  path: string;
  /** As the user would recognise it: relative to cwd when inside it, absolute otherwise. */
  displayPath: string;
  /** sha256 of the file's bytes, hex: what identifies the content across runs. */
  sha256: string;
  /** Size in bytes. */
  size: number;
  /** The file type found in its bytes (not its name). */
  type: 'pdf' | 'jpeg' | 'png';
  /** The media type sent with the upload. */
  contentType: string;
  /** Pages sent (the selected ones under --pages). undefined: a PDF we could not count; the server's status code decides sync or split. */
  pages: number | undefined;
  /**
   * The source's pages to send, ascending and 1-based, when only some are
   * (--pages): they are cut out locally and uploaded as a PDF of their own.
   * Absent: the whole file is sent as it is.
   */
  sourcePages?: number[];
  /** The source's own page count, when `sourcePages` is set. */
  sourcePageCount?: number;
  /** Set when this document is one part of a source past the service's limits: each part is a question of its own. */
  part?: PartOf;
  /** Where its result file goes. */
  output: string;
  /** The output folder `output` lies in: nothing below it is written through a link. @default undefined: written as named */
  outputRoot?: string;
  /** The template to send, normalised; undefined leaves it to the service (invoice). */
  model?: string;
  /** The command that asked for it, when several share one scheduler (see engine/host): everything about the document (progress, requests, credits, its outcome) goes back to that command. @default "" (this process) */
  origin?: string;
  /** The id the asking command gave the document when it submitted it (with `origin`, who gets its news). */
  askedAs?: number;
}

/**
 * How a document ended: `complete` (every page extracted, result on disk),
 * `partial` (result on disk, some pages missing), `failed` (no result; see
 * `error`), `skipped` (not sent: a budget, no job slot, or the run stopped
 * admitting work), `interrupted` (the run was aborted first; an open job
 * resumes on the next run).
 */
export type DocumentStatus = 'complete' | 'partial' | 'failed' | 'skipped' | 'interrupted';

/** One line per input, as printed by --json. */
export interface DocumentOutcome {
  /** The input, as the user would recognise it: relative to cwd when inside it. */
  file: string;
  /** The input's absolute path, on an outcome without a result (failed, skipped, interrupted) when the file is known; absent for an argument that named no file. */
  source?: string;
  /** How it ended. */
  status: DocumentStatus;
  /** Pages in the document; null when unknown. */
  pages: number | null;
  /** The document type the service reports it used, else the one asked; null without a result. */
  model: string | null;
  /** The result file's path; null when none was written. */
  output: string | null;
  /** The parent job id of a split document; null for a synchronous one or before the split. */
  job_id: string | null;
  /** The id of the result stored server-side (`store_db`); null otherwise. */
  extraction_id: string | null;
  /** The service's warnings on the result, e.g. `mixed_models`. */
  warnings: string[];
  /** The extracted data; left out of the report a finished run returns. */
  data?: unknown;
  /** Why the document did not complete: a code, a plain message, and (where the reader is advised what to do) the facts to word that advice with. */
  error?: OutcomeError;
  /** Pages without extracted data: those of a partial result, or of a job left open. */
  missing_pages?: number[];
  /** Credits this run spent on the document (0 when reused or not sent). */
  credits: number;
  /** For interrupted jobs: when the server forgets them. */
  expires_at?: string;
  /** Set when an earlier answer was reused instead of sending: why it answers this question. */
  reused?: string;
  /** Credits that reuse saved (what the reused result cost when it was made). */
  saved_credits?: number;
  /**
   * What the service said it charged for the document's job (`credits_used`
   * of its collected result), beside what it should have: the pages sent
   * less those it reports without data. Only on a collected multi-page job
   * whose answer carried `credits_used`.
   */
  service_charge?: ServiceCharge;
  /** The result's data against the schema of its document type, when one applies. */
  checks?: ResultChecks;
  /** A person reviewed the result on disk (`docextract review`): `data` holds their corrections. */
  reviewed?: true;
  /** A source past the service's limits was sent in parts: each part's pages and how it ended (`output` is then the source's one result, listing them). */
  parts?: PartOutcome[];
}

/** One part of a source sent in parts, as its outcome lists it. */
export interface PartOutcome {
  /** The source's pages this part sent, 1-based, ascending. */
  source_pages: number[];
  status: DocumentStatus;
  /** The part's own result file; null when none was written. */
  output: string | null;
  /** Its parent job id, when it was split. */
  job_id: string | null;
  /** Credits this run spent on the part. */
  credits: number;
  /** Why the part did not complete. */
  error?: OutcomeError;
  /** For an interrupted part's open job: when the server forgets it. */
  expires_at?: string;
}

/** A job's charge as the service reported it, and as the pages sent say it should be (1 page = 1 credit). */
export interface ServiceCharge {
  /** `credits_used` of the collected result. */
  reported: number;
  /** Pages sent in the job, less the pages it has no data for (failed or pending chunks are not charged). */
  expected: number;
}

/** Checks a result's data the moment it arrives, locally (no request); see src/checks/. */
export interface ResultChecker {
  /** The verdict on `data` for `documentType` (normalised), or undefined when no schema applies to that type. */
  check(documentType: string, data: unknown): ResultChecks | undefined;
}

/** Why a document did not complete. */
export interface OutcomeError {
  /** Stable machine-readable code: the service's (e.g. `file_too_large`) or the run's own (e.g. `insufficient_credits`, `interrupted`, `partial`). Branch on this. */
  code: string;
  /** What happened, for people, in plain words that name no command (a CLI or an agent adds its own advice from `details`); the wording is not stable. */
  message: string;
  /** The facts behind the outcome (an open job, a setting), for advice. */
  details?: OutcomeDetails;
}

/**
 * The facts behind an outcome that a consumer words as advice: data, never
 * words, so the CLI says "docextract collect <id>" and a library caller
 * something else.
 */
export type OutcomeDetails =
  /** The document's job is open on the server until `expires_at`: finishing it (running again, or collecting it) costs no new upload. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'job_open';
      /** The parent job's id on the service (what `docextract collect` takes). */
      job_id: string;
      /** When the service drops the job (ISO 8601, UTC). */
      expires_at: string;
    }
  /** No page of the job could be extracted: no result was written, and the job stays open (not finalized) until `expires_at` so its chunks can be tried again. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'job_kept_open';
      /** The parent job's id on the service (what `docextract collect` takes). */
      job_id: string;
      /** When the service drops the job (ISO 8601, UTC). */
      expires_at: string;
    }
  /** Pages still missing after every collect round; the job stays open (not finalized) so they can be tried again. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'pages_missing';
      /** The parent job's id on the service (what `docextract collect` takes). */
      job_id: string;
      /** When the service drops the job (ISO 8601, UTC). */
      expires_at: string;
      /** The 1-based numbers of the pages with no result. */
      missing_pages: number[];
      /** How many collect rounds were made before giving up on them. */
      collect_rounds: number;
    }
  /** No job slot came free within the run's slot wait; `held_by_others` slots were held by jobs outside the run. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'slot_wait_over';
      /** How long the run waited for a slot (ms; RunSettings.slotWaitMs). */
      slot_wait_ms: number;
      /** Job slots held by jobs outside this run when the wait ended. */
      held_by_others: number;
    }
  /** The run ended (Ctrl-C, a fatal error) before anything of this document was sent: no job, nothing paid; running again takes it. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'not_started';
    }
  /** The run's uploads stopped (a budget, the credits, a halt) before this document was sent. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'uploads_stopped';
      /** The error code of the stop, e.g. `max_credits`. */
      stopped_by: string;
    }
  /** A synchronous extraction failed; `charged` credits were spent; it may be retried once (retryFailed). */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'extraction_failed';
      /** Credits the service charged for the failed extraction. */
      charged: number;
    }
  /** The job was lost and its source is unknown to this run: extract the file again to finish it. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'source_unknown';
    }
  /** Under the rate windows, a document of this many pages cannot be finished before its job expires. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'rate_budget_too_small';
      /** The document's page count. */
      pages: number;
    }
  /** maxCredits would be passed by this document. */
  | {
      /** Which case this is; the other fields depend on it. */
      kind: 'max_credits';
      /** The run's credit cap (RunSettings.maxCredits). */
      max_credits: number;
      /** The document's page count; undefined when it could not be counted before upload. */
      pages: number | undefined;
      /** The document, as the user would recognise it (its display path). */
      file: string;
    };

export type { RunSettings } from '../config/run-tuning.js';

/** What the runner tells the display as work moves. */
export interface BatchEvents {
  /** An upload of the document is being sent (again, after a retry). */
  uploadStarted?(doc: PlannedDocument): void;
  /** The document was split and its job opened, with `chunksTotal` chunks to process. */
  documentStarted?(doc: PlannedDocument, chunksTotal: number | null): void;
  /** One more chunk of a split document is processed. */
  chunkDone?(doc: PlannedDocument, chunksDone: number, chunksTotal: number): void;
  /** The document ended, whatever the way: exactly once per input (`doc`: the document it ends, when it was planned). */
  documentFinished(outcome: DocumentOutcome, doc?: PlannedDocument): void;
  /** A request to `endpoint` (`documents`, `process`, …) for `doc` was handed to the network. */
  requestSent?(endpoint: string, doc?: PlannedDocument): void;
  /** The service charged `credits` for `doc` (a synchronous extraction, a chunk, a failed synchronous 422). */
  creditsCharged?(credits: number, doc?: PlannedDocument): void;
  /** Nothing can be sent before `untilMs` (Unix ms), for `reason`, e.g. a full rate window. */
  waiting?(untilMs: number, reason: string): void;
  /** The scheduler's lower bound for the time the unfinished documents still need (at most once a second). */
  timeLeft?(boundMs: number): void;
  /** Job slots held by jobs outside this run (0: none any more), and when the next probe goes. */
  slotsHeld?(held: number, nextTryAt: number | undefined): void;
  /** Something a person should know that is not an outcome, e.g. a job from an earlier run still open (`doc`: the document it concerns, if one). */
  notice?(message: string, doc?: PlannedDocument): void;
  /** No upload can be admitted any more (a budget, the credits, a halt): files still arriving are not taken. */
  intakeStopped?(reason: { code: string; message: string; details?: OutcomeDetails }): void;
  /** A job an earlier run left open that no document of this run takes up: it holds a job slot until it is finished (collected) or expires. */
  strayJob?(job: { parentJobId: string; path: string; expiresAt: number }): void;
  /** A chunk's extraction failed: it is tried again at `retryAt`, or (without one) its pages will be reported missing. */
  chunkFailed?(failure: ChunkFailure, doc?: PlannedDocument): void;
  /** A request reached no server (no connection was made): it is not counted, and the service is unreachable since `since`. */
  requestUnreached?(endpoint: string, doc?: PlannedDocument): void;
  /** A request's answer (or failure) came back. */
  requestAnswered?(endpoint: string, doc?: PlannedDocument): void;
  /** The service cannot be reached (first said at `since`), or can again (`since` undefined, after `downMs`). */
  reachability?(change: { reachable: false; since: number; detail: string } | { reachable: true; downMs: number }): void;
}

/** One failed try at a chunk, as the display is told of it. */
export interface ChunkFailure {
  /** The document, as the user would recognise it. */
  file: string;
  /** The chunk's page range, e.g. "4-6". */
  pages: string;
  /** The error code of the failure, e.g. `extraction_failed`. */
  code: string;
  /** Tries so far that failed. */
  failures: number;
  /** How many tries the chunk gets in all (RunSettings.chunkTries). */
  tries: number;
  /** When it is tried again; absent once it has been given up. */
  retryAt?: number;
}

/**
 * One run's usage, as the state folder keeps it: totals, credits per
 * document type and per folder, and the charges the service reported
 * checked against the pages sent (each difference kept, the rest counted).
 * Bounded by the run's document types and folders, never by its files.
 */
import { dirname, resolve } from 'node:path';
import type { DocumentOutcome } from '../batch/batch-types.js';

/** Credits and documents of one group of a run's documents. */
export interface UsageTotals {
  /** Credits the documents were charged (reused results cost none). */
  credits: number;
  /** Documents with an outcome, reused ones included. */
  documents: number;
  /** Documents answered from an earlier result instead of being sent. */
  reused: number;
  /** Credits those reused results had cost. */
  saved_credits: number;
}

/** A job whose reported charge differs from the pages sent. */
export interface ChargeMismatch {
  /** The document, as the run showed it. */
  file: string;
  job_id: string | null;
  /** Credits the pages sent call for. */
  expected: number;
  /** `credits_used` as the service reported it. */
  reported: number;
  /** When the result was collected (the run's end). */
  at: string;
}

export interface UsageRecord extends UsageTotals {
  v: 1;
  account: string;
  /** The profile the run used (`default` when none). */
  profile: string;
  /** The command that ran it: extract, collect, watch, library. */
  command: string;
  started_at: string;
  finished_at: string;
  /** Requests this run sent (a command riding along on another's scheduler sends none: its host counts them). */
  requests: number;
  /** Per document type. */
  models: Record<string, UsageTotals>;
  /** Per folder of the documents (absolute). */
  folders: Record<string, UsageTotals>;
  /** Jobs whose collected result reported `credits_used`, what they should have cost and what was reported, and every job where the two differ. */
  charges: { jobs: number; expected: number; reported: number; mismatches: ChargeMismatch[] };
}

/** What a finished run tells the recorder beyond its documents' outcomes. */
export interface RunFacts {
  account: string;
  profile?: string;
  command: string;
  startedAtMs: number;
  finishedAtMs: number;
  requests: number;
  /** What relative document paths are relative to. */
  cwd: string;
}

export function emptyTotals(): UsageTotals {
  return { credits: 0, documents: 0, reused: 0, saved_credits: 0 };
}

export function addTotals(into: UsageTotals, from: UsageTotals): void {
  into.credits += from.credits;
  into.documents += from.documents;
  into.reused += from.reused;
  into.saved_credits += from.saved_credits;
}

/**
 * Adds outcomes one by one (a `watch` keeps no list of them), and gives the run's record at the end.
 *
 * Credits come from one of two sources. `outcomes`: each outcome's credits,
 * for a caller that sees only outcomes (a library run). `charges`: what the
 * service charged this run, told as it answers (`charged`); an outcome then
 * only says where its document's charges belong. A resumed job's outcome
 * carries the credits of the chunks an interrupted run paid for, which that
 * run recorded; and a run ended by a second Ctrl-C has charges whose
 * documents never got an outcome, which its record must still count.
 */
export class UsageTally {
  private readonly total = emptyTotals();
  private readonly models = new Map<string, UsageTotals>();
  private readonly folders = new Map<string, UsageTotals>();
  private readonly charges = { jobs: 0, expected: 0, reported: 0, mismatches: [] as Omit<ChargeMismatch, 'at'>[] };
  /** Charges of documents without an outcome yet, by display path (only documents in flight: it empties as they finish). */
  private readonly unsettled = new Map<string, { credits: number; model: string | undefined }>();

  constructor(
    private readonly cwd: string,
    private readonly creditsFrom: 'outcomes' | 'charges' = 'outcomes',
  ) {}

  /** The service charged `credits` for the document shown as `file` (counted with `creditsFrom: 'charges'`). */
  charged(credits: number, file: string, model: string | undefined): void {
    if (this.creditsFrom !== 'charges') return;
    const earlier = this.unsettled.get(file)?.credits ?? 0;
    this.unsettled.set(file, { credits: earlier + credits, model });
  }

  add(outcome: DocumentOutcome): void {
    const charged = this.unsettled.get(outcome.file);
    this.unsettled.delete(outcome.file);
    const credits = this.creditsFrom === 'charges' ? (charged?.credits ?? 0) : outcome.credits;
    const counted: UsageTotals = { credits, documents: 1, reused: outcome.reused ? 1 : 0, saved_credits: outcome.reused ? (outcome.saved_credits ?? 0) : 0 };
    addTotals(this.total, counted);
    addTotals(group(this.models, outcome.model ?? '(none)'), counted);
    addTotals(group(this.folders, this.folderOf(outcome.file)), counted);
    const charge = outcome.service_charge;
    if (!charge) return;
    this.charges.jobs += 1;
    this.charges.expected += charge.expected;
    this.charges.reported += charge.reported;
    if (charge.reported !== charge.expected)
      this.charges.mismatches.push({ file: outcome.file, job_id: outcome.job_id, expected: charge.expected, reported: charge.reported });
  }

  /** The record so far: charges of documents still without an outcome count too, under the template their document asked for. */
  record(run: RunFacts): UsageRecord {
    const finishedAt = new Date(run.finishedAtMs).toISOString();
    const total = { ...this.total };
    const models = copyGroups(this.models);
    const folders = copyGroups(this.folders);
    for (const [file, { credits, model }] of this.unsettled) {
      const counted = { ...emptyTotals(), credits };
      addTotals(total, counted);
      addTotals(group(models, model ?? '(none)'), counted);
      addTotals(group(folders, this.folderOf(file)), counted);
    }
    return {
      v: 1,
      account: run.account,
      profile: run.profile ?? 'default',
      command: run.command,
      started_at: new Date(run.startedAtMs).toISOString(),
      finished_at: finishedAt,
      requests: run.requests,
      ...total,
      models: Object.fromEntries(models),
      folders: Object.fromEntries(folders),
      charges: { ...this.charges, mismatches: this.charges.mismatches.map((mismatch) => ({ ...mismatch, at: finishedAt })) },
    };
  }

  private folderOf(file: string): string {
    return resolve(this.cwd, dirname(file));
  }
}

function copyGroups(groups: Map<string, UsageTotals>): Map<string, UsageTotals> {
  return new Map([...groups].map(([key, totals]) => [key, { ...totals }]));
}

function group(groups: Map<string, UsageTotals>, key: string): UsageTotals {
  let totals = groups.get(key);
  if (!totals) groups.set(key, (totals = emptyTotals()));
  return totals;
}

/**
 * `docextract usage`: what the state folder recorded, summed. It reads the
 * usage records and the request gate's send log, and sends nothing.
 */
import type { RateWindow } from '../config/grammar/rate-limit.js';
import { addTotals, emptyTotals, type ChargeMismatch, type UsageRecord, type UsageTotals } from '../engine/usage-record.js';

/** Every way usage rows can be grouped (what `--by` accepts). */
export const USAGE_GROUPINGS = ['day', 'week', 'month', 'model', 'folder', 'command'] as const;
/** One way of grouping usage rows: a period (local calendar day, week from Monday, month), or the document type, the documents' folder, or the command. */
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** One group's sums. `requests` is null by model and by folder: a request is the run's, not a document's. */
export interface UsageRow extends UsageTotals {
  /** The day (YYYY-MM-DD, local), the week (its Monday), the month (YYYY-MM), or the model, folder or command. */
  key: string;
  /** Requests the group's runs sent; null by model and by folder. */
  requests: number | null;
}

/** How much of one rate window the key's recent sends take now. */
export interface WindowUse {
  /** As configured, e.g. `10/min`. */
  window: string;
  /** Requests the window allows. */
  limit: number;
  /** Requests sent inside the window ending now (from the send log). */
  used: number;
  /** Requests it allows still: `limit - used`, never below 0. */
  remaining: number;
  /** When the oldest send it counts leaves it (a slot comes free); null when it counts none. */
  frees_at: string | null;
}

/** What `docextract usage` shows: sums over the period, by group, and the rate windows now. */
export interface UsageReport {
  /** The first instant counted. */
  since: string;
  /** The oldest record kept for the account(s), whatever `since` says; null with none. */
  records_from: string | null;
  /** Sums over every run counted. */
  total: UsageTotals & {
    /** Requests the runs sent. */
    requests: number;
    /** Runs counted (finished since `since`). */
    runs: number;
  };
  /** One per group (UsageQuery.by): periods in time order; models, folders and commands by credits, the most first. */
  rows: UsageRow[];
  /** Jobs whose reported charge (credits_used) differs from the pages sent. */
  mismatches: ChargeMismatch[];
  /** Jobs checked, and what they should have cost and were reported to cost. */
  charges: {
    /** Jobs whose result reported `credits_used`. */
    jobs: number;
    /** Credits their pages call for. */
    expected: number;
    /** Credits the service reported for them. */
    reported: number;
  };
  /** Each configured rate window's use now; empty over every account (windows are per account) or with no windows. */
  windows: WindowUse[];
}

export interface UsageInputs {
  records: readonly UsageRecord[];
  /** Send times of the request gate's persisted log (Unix ms). */
  sends: readonly number[];
  windows: readonly RateWindow[];
  sinceMs: number;
  nowMs: number;
  by: UsageGrouping;
}

export function usageReport(inputs: UsageInputs): UsageReport {
  const counted = inputs.records.filter((record) => Date.parse(record.finished_at) >= inputs.sinceMs);
  const total = { ...emptyTotals(), requests: 0, runs: counted.length };
  const charges = { jobs: 0, expected: 0, reported: 0 };
  const mismatches: ChargeMismatch[] = [];
  const rows = new Map<string, UsageRow>();
  for (const record of counted) {
    addTotals(total, record);
    total.requests += record.requests;
    charges.jobs += record.charges.jobs;
    charges.expected += record.charges.expected;
    charges.reported += record.charges.reported;
    mismatches.push(...record.charges.mismatches);
    for (const [key, totals, requests] of groupsOf(record, inputs.by)) {
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { key, ...emptyTotals(), requests: requests === null ? null : 0 }));
      addTotals(row, totals);
      if (row.requests !== null && requests !== null) row.requests += requests;
    }
  }
  const oldest = inputs.records[0]?.finished_at ?? null;
  return {
    since: new Date(inputs.sinceMs).toISOString(),
    records_from: oldest,
    total,
    rows: orderRows([...rows.values()], inputs.by),
    mismatches,
    charges,
    windows: inputs.windows.map((window) => windowUse(window, inputs.sends, inputs.nowMs)),
  };
}

/** The groups one run adds to: one period, or its models, folders or command. */
function groupsOf(record: UsageRecord, by: UsageGrouping): [string, UsageTotals, number | null][] {
  const at = new Date(record.finished_at);
  switch (by) {
    case 'day':
      return [[localDate(at), record, record.requests]];
    case 'week':
      return [[localDate(mondayOf(at)), record, record.requests]];
    case 'month':
      return [[localDate(at).slice(0, 7), record, record.requests]];
    case 'command':
      return [[record.command || '(unknown)', record, record.requests]];
    case 'model':
      return Object.entries(record.models).map(([key, totals]) => [key, totals, null]);
    case 'folder':
      return Object.entries(record.folders).map(([key, totals]) => [key, totals, null]);
  }
}

/** Periods in time order; models, folders and commands by credits spent, the most first. */
function orderRows(rows: UsageRow[], by: UsageGrouping): UsageRow[] {
  if (by === 'day' || by === 'week' || by === 'month') return rows.sort((a, b) => a.key.localeCompare(b.key));
  return rows.sort((a, b) => b.credits - a.credits || a.key.localeCompare(b.key));
}

function windowUse(window: RateWindow, sends: readonly number[], nowMs: number): WindowUse {
  const inside = sends.filter((at) => at > nowMs - window.windowMs && at <= nowMs);
  const oldest = inside.length > 0 ? Math.min(...inside) : undefined;
  return {
    window: window.label,
    limit: window.limit,
    used: inside.length,
    remaining: Math.max(0, window.limit - inside.length),
    frees_at: oldest === undefined ? null : new Date(oldest + window.windowMs).toISOString(),
  };
}

/** A calendar day where the user is, as people count days. */
function localDate(at: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

function mondayOf(at: Date): Date {
  const monday = new Date(at.getFullYear(), at.getMonth(), at.getDate());
  monday.setDate(monday.getDate() - ((monday.getDay() + 6) % 7));
  return monday;
}

/** `7d`, `12h` (back from now) or a date (`2026-11-01`, local midnight). */
export function parseSince(spec: string, nowMs: number, parseDuration: (spec: string) => number): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(spec.trim());
  if (date) {
    const at = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime();
    if (Number.isFinite(at)) return at;
  }
  return nowMs - parseDuration(spec);
}

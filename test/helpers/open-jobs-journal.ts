import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JournalRecord } from '../../src/batch/journal-records.js';
import { JOURNAL_FILE } from '../../src/config/state-dir.js';

/** The jobs `docextract jobs` lists as open in the journal keepOpenJobsJournal writes (`job_open_b` another key's). */
export const OPEN_JOB_IDS = ['job_open_a', 'job_open_b', 'job_named_badly'];

/**
 * A journal in `stateDir` as runs leave it: jobs still open (of two keys), one finalized, one closed, one expired, and
 * one whose source's name holds what a careless reader would take for a record's field or a command
 * (`"parentJobId":"job_planted"`, `$(touch ran)`): only the open ones' ids are what completion may offer.
 */
export function keepOpenJobsJournal(stateDir: string, nowMs: number, account = '0123456789abcdef'): void {
  const manifest = (account: string, parentJobId: string, path: string, expiresAt: number): JournalRecord => ({
    type: 'manifest',
    account,
    at: nowMs - 60_000,
    intentId: `intent-${parentJobId}`,
    sha256: 'a'.repeat(64),
    path,
    output: `${path}.json`,
    parentJobId,
    chunks: [{ jobId: `${parentJobId}_c1`, pages: '1-3' }],
    pages: 3,
    expiresAt,
    model: null,
  });
  const hour = 3_600_000;
  const records: JournalRecord[] = [
    manifest(account, 'job_open_a', '/in/a.pdf', nowMs + hour),
    manifest('fedcba9876543210', 'job_open_b', '/in/b.pdf', nowMs + 2 * hour),
    manifest(account, 'job_named_badly', '/in/x"parentJobId":"job_planted"$(touch ran)`touch ran`.pdf', nowMs + hour),
    manifest(account, 'job_finalized', '/in/c.pdf', nowMs + hour),
    { type: 'finalized', account, at: nowMs - 1000, parentJobId: 'job_finalized' },
    manifest(account, 'job_closed', '/in/d.pdf', nowMs + hour),
    { type: 'job-closed', account, at: nowMs - 1000, parentJobId: 'job_closed', reason: 'gone' },
    manifest(account, 'job_expired', '/in/e.pdf', nowMs - 1000),
  ];
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, JOURNAL_FILE), records.map((record) => `${JSON.stringify(record)}\n`).join(''), { mode: 0o600 });
}

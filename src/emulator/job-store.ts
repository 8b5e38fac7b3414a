import { randomBytes } from 'node:crypto';
import type { PageRecord } from './synthetic/extract.js';

export const CHUNK_PAGES = 3;

export interface ChunkClaim {
  token: number;
  at: number;
}

export interface ChunkJob {
  id: string;
  parentId: string;
  firstPage: number;
  lastPage: number;
  done: boolean;
  /** The last attempt ended in extraction_failed or persist_failed (cleared by success). */
  lastAttemptFailed: boolean;
  claim: ChunkClaim | null;
  /** Template used when it was processed. */
  model: string | null;
  pages: PageRecord[] | null;
}

export interface ParentJob {
  id: string;
  key: string;
  sha256: string;
  filename: string;
  pageCount: number;
  chunks: ChunkJob[];
  createdAt: number;
  expiresAt: number;
  sourceLost: boolean;
  /** The file carries the fail-extraction marker: every chunk fails with 422. */
  failsExtraction: boolean;
  creditsUsed: number;
  /** Opened by another client on the key (foreignJobs): holds a slot, never shown, not counted as ours when it expires. */
  foreign: boolean;
}

export type NewJob = Pick<ParentJob, 'key' | 'sha256' | 'filename' | 'pageCount' | 'failsExtraction'> & Partial<Pick<ParentJob, 'foreign'>>;

/** [first, first + 1, ..., last] */
export function pageRange(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

export type JobLookup<T> = { state: 'alive'; job: ParentJob; target: T } | { state: 'gone' } | { state: 'missing' };

interface Tombstone {
  key: string;
  kind: 'parent' | 'chunk';
}

/** Same prefix for parents and chunks: only the server can tell them apart, as with the real ids. */
function newJobId(): string {
  return `job_${randomBytes(12).toString('hex')}`;
}

/**
 * Multi-page jobs and their chunks. Expiry is checked lazily against the
 * injected clock (on every lookup and sweep). Finalized and expired jobs
 * leave a tombstone per id so later calls give 410 rather than 404, still
 * scoped to the owning key.
 */
export class JobStore {
  private readonly parents = new Map<string, ParentJob>();
  private readonly chunks = new Map<string, ChunkJob>();
  private readonly tombstones = new Map<string, Tombstone>();
  private nextClaimToken = 1;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly onExpire: (job: ParentJob) => void,
  ) {}

  /** A split: the parent and its chunks of CHUNK_PAGES pages, in page order. */
  create(spec: NewJob, ttlMs = this.ttlMs): ParentJob {
    const createdAt = this.now();
    const job: ParentJob = { foreign: false, ...spec, id: newJobId(), chunks: [], createdAt, expiresAt: createdAt + ttlMs, sourceLost: false, creditsUsed: 0 };
    for (let first = 1; first <= spec.pageCount; first += CHUNK_PAGES) {
      const lastPage = Math.min(spec.pageCount, first + CHUNK_PAGES - 1);
      const chunk: ChunkJob = {
        id: newJobId(),
        parentId: job.id,
        firstPage: first,
        lastPage,
        done: false,
        lastAttemptFailed: false,
        claim: null,
        model: null,
        pages: null,
      };
      job.chunks.push(chunk);
      this.chunks.set(chunk.id, chunk);
    }
    this.parents.set(job.id, job);
    return job;
  }

  findParent(id: string, key: string): JobLookup<ParentJob> {
    const job = this.parents.get(id);
    if (job !== undefined && job.key === key && this.isAlive(job)) return { state: 'alive', job, target: job };
    return this.goneOrMissing(id, key, 'parent');
  }

  findChunk(id: string, key: string): JobLookup<ChunkJob> {
    const chunk = this.chunks.get(id);
    const job = chunk === undefined ? undefined : this.parents.get(chunk.parentId);
    if (chunk !== undefined && job !== undefined && job.key === key && this.isAlive(job)) return { state: 'alive', job, target: chunk };
    return this.goneOrMissing(id, key, 'chunk');
  }

  /** Whether the job is still live (not finalized, not expired); expires it as a side effect when due. */
  isAlive(job: ParentJob): boolean {
    if (this.tombstones.has(job.id)) return false;
    if (this.now() < job.expiresAt) return true;
    this.bury(job);
    this.onExpire(job);
    return false;
  }

  /** Every live job of the key (expiring the overdue ones first). */
  openJobs(key: string): ParentJob[] {
    return [...this.parents.values()].filter((job) => job.key === key && this.isAlive(job));
  }

  sweep(): void {
    for (const job of [...this.parents.values()]) this.isAlive(job);
  }

  /** Test hook: expire now, whatever the clock says. */
  forceExpire(id: string): void {
    const job = this.parents.get(id);
    if (job === undefined || this.tombstones.has(id)) return;
    job.expiresAt = Math.min(job.expiresAt, this.now());
    this.isAlive(job);
  }

  /** Test hook: pending chunks of the job answer 410 chunk_source_lost from now on. */
  markSourceLost(id: string): void {
    const job = this.parents.get(id);
    if (job !== undefined) job.sourceLost = true;
  }

  /** From now on the job answers 410; its data stays until `purge` (after the response is flushed). */
  finalize(job: ParentJob): void {
    this.bury(job);
  }

  /** Hard-deletes a buried job's data. */
  purge(job: ParentJob): void {
    for (const chunk of job.chunks) {
      chunk.pages = null;
      this.chunks.delete(chunk.id);
    }
    this.parents.delete(job.id);
  }

  claim(chunk: ChunkJob): ChunkClaim {
    chunk.claim = { token: this.nextClaimToken++, at: this.now() };
    return chunk.claim;
  }

  release(chunk: ChunkJob, claim: ChunkClaim): void {
    if (chunk.claim?.token === claim.token) chunk.claim = null;
  }

  private bury(job: ParentJob): void {
    this.tombstones.set(job.id, { key: job.key, kind: 'parent' });
    for (const chunk of job.chunks) this.tombstones.set(chunk.id, { key: job.key, kind: 'chunk' });
    // An expired job's data is cleaned up at once; a finalized one is purged by the caller after flushing.
    if (this.now() >= job.expiresAt) this.purge(job);
  }

  /** A tombstone answers 410 only to its own key and only for the same kind of id; anything else is 404. */
  private goneOrMissing(id: string, key: string, kind: Tombstone['kind']): { state: 'gone' } | { state: 'missing' } {
    const tombstone = this.tombstones.get(id);
    return tombstone?.key === key && tombstone.kind === kind ? { state: 'gone' } : { state: 'missing' };
  }
}

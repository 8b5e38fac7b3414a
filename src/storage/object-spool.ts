/**
 * How long the spool keeps an object's bytes: only while a document of it is
 * worked on (read ahead, checked, sent, or a job left open that may need
 * them again). Once its document is settled the bytes go, so the disk holds
 * what is in flight, not every object ever read. What stays is its read
 * record, the key index: (endpoint, bucket, key, ETag, size) and what its
 * bytes were found to be (sha256, type, pages). A rerun plans an unchanged
 * object from that record without downloading it, and downloads it again
 * only when it must be sent (its answer is not known).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PreflightOk } from '../files/preflight.js';
import { pastLimits } from '../files/pdf-parts.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { readRecordPathOf, spooledObjectOf } from './spool-layout.js';

/** What its bytes were found to be, once checked: enough to plan it again without them. */
type KnownCheck = Pick<PreflightOk, 'sha256' | 'type' | 'contentType' | 'pages' | 'split'>;

/** One key's record: the version read, and once checked, what it is. */
export interface ReadRecord {
  bucket: string;
  key: string;
  etag: string;
  size: number;
  checked?: KnownCheck;
}

/** The record of `bucket/key`, if any and readable. */
export async function readRecordOf(record: string): Promise<ReadRecord | undefined> {
  try {
    return JSON.parse(await readFile(record, 'utf8')) as ReadRecord;
  } catch {
    return undefined;
  }
}

/** The record is of this very version of the key (an ETag is compared only with the same key's). */
export function sameVersion(kept: ReadRecord | undefined, read: Omit<ReadRecord, 'checked'>): kept is ReadRecord {
  return kept !== undefined && kept.bucket === read.bucket && kept.key === read.key && kept.etag === read.etag && kept.size === read.size;
}

/**
 * The object's check as recorded, standing for its bytes: undefined when none
 * was recorded, or when planning it reads the bytes again (a PDF past the
 * service's limits is cut into parts by its pages' weights; an uncounted one is counted).
 */
export function knownCheck(kept: ReadRecord, path: string): PreflightOk | undefined {
  const checked = kept.checked;
  if (!checked) return undefined;
  if (checked.type === 'pdf' && (checked.pages === undefined || pastLimits(checked.pages, kept.size) !== undefined)) return undefined;
  return { ok: true, path, size: kept.size, ...checked };
}

/** Records the version just downloaded (not yet checked). */
export async function writeReadRecord(record: string, read: ReadRecord): Promise<void> {
  await mkdir(dirname(record), { recursive: true, mode: 0o700 });
  await writeFile(record, JSON.stringify(read), { mode: 0o600 });
}

/** Records the version of the spool file at `path` (as listed) with what its bytes were found to be. */
export async function recordCheck(spoolDir: string, path: string, listed: { etag: string; size: number }, checked: PreflightOk): Promise<void> {
  const at = spooledObjectOf(spoolDir, path);
  if (!at || checked.size !== listed.size) return;
  const { sha256, type, contentType, pages, split } = checked;
  const record: ReadRecord = { bucket: at.bucket, key: at.key, etag: listed.etag, size: listed.size, checked: { sha256, type, contentType, pages, split } };
  await writeFileAtomically(readRecordPathOf(at.storeDir, at.bucket, at.key), JSON.stringify(record), { mode: 0o600 });
}

/**
 * The documents of each spool file still worked on in this run (a PDF in parts
 * is several): the file is removed when the last one settles, and kept when
 * one was left with its job open (the rerun that resumes it may re-split it).
 */
export class SpoolHolds {
  private readonly held = new Map<string, { documents: number; keep: boolean }>();

  constructor(private readonly spoolDir: string) {}

  /** A document of `path` is planned. */
  hold(path: string): void {
    if (!spooledObjectOf(this.spoolDir, path)) return;
    const entry = this.held.get(path) ?? { documents: 0, keep: false };
    entry.documents += 1;
    this.held.set(path, entry);
  }

  /** A document of `path` settled (`keep`: its job is left open). Resolves once its bytes are removed, if they are. */
  async settled(path: string, keep: boolean): Promise<void> {
    if (!spooledObjectOf(this.spoolDir, path)) return;
    const entry = this.held.get(path) ?? { documents: 1, keep: false };
    entry.documents -= 1;
    entry.keep ||= keep;
    if (entry.documents > 0) return void this.held.set(path, entry);
    this.held.delete(path);
    // Its record stays (the key index): a rerun neither downloads it nor pays for it again.
    if (!entry.keep) await rm(path, { force: true });
  }
}

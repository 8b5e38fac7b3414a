/**
 * `watch s3://bucket/inbox/`: the prefix listed (ListObjectsV2, a page at a
 * time) every poll, each new (key, ETag) downloaded to the spool folder and
 * handed on as a local file, as `extract` reads objects (object-inputs.ts).
 * An object appears whole (a PUT is atomic), so nothing settles. A key
 * overwritten with a new ETag is a new document; the same (key, ETag) is
 * taken once: once its outcome is final it is recorded in the state folder
 * (one small file per key, so a restart does not take it again and a
 * million keys never sit in memory); until then this run remembers it.
 * Its spooled bytes go once its outcome is final: the spool holds what is in
 * flight (and, until the next start, what failed for a reason that may pass).
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../store/atomic-write.js';
import type { Clock } from '../util/clock.js';
import { isFolderMarker, objectUriOf } from '../util/object-uri.js';
import { objectFolderOf, type ObjectFolder } from './object-folder.js';
import type { ObjectInfo, ObjectStore, ObjectStoreOptions } from './object-store.js';
import { ObjectStoreError } from './object-store-error.js';
import { unchangedSince, unusableAsPath, whyNotAFile } from './object-inputs.js';
import { objectAddressOf, readRecordPathOf, spoolPathOf, storeSpoolDir } from './spool-layout.js';

/** One object taken from the inbox: the version that was read. */
export interface TakenObject {
  bucket: string;
  key: string;
  etag: string;
}

export interface ObjectInboxOptions extends ObjectStoreOptions {
  /** The spool folder, in the state folder (where `extract` spools objects too). */
  spoolDir: string;
  /** Folders under the inbox never taken from (`--move-done`, `--move-failed`, an `s3://` `--out` inside it). */
  exclude?: readonly ObjectFolder[];
  /** Opens the store (tests pass a stand-in). @default the S3 store, its SDK loaded then */
  open?: (options: ObjectStoreOptions) => Promise<ObjectStore>;
}

/** The longest wait between two listings that failed, whatever `--poll` is. */
const MAX_BACKOFF_MS = 10 * 60_000;

export class ObjectInbox {
  /** Spool path -> the version taken there, until its outcome is final. */
  private readonly pending = new Map<string, TakenObject>();
  /** Keys taken by this run whose outcome is not recorded as final (in flight, or failed for a reason that may pass): not taken again by this run. */
  private readonly tried = new Map<string, string>();
  /** Keys said to be passed over (not documents), so each is said once a run. */
  private readonly said = new Set<string>();

  private constructor(
    readonly store: ObjectStore,
    readonly folder: ObjectFolder,
    private readonly spoolDir: string,
    private readonly exclude: readonly ObjectFolder[],
  ) {}

  static async open(uri: string, options: ObjectInboxOptions): Promise<ObjectInbox> {
    const folder = objectFolderOf(uri);
    const open = options.open ?? (async (settings) => (await import('./s3-store.js')).openObjectStore(settings));
    return new ObjectInbox(await open(options), folder, options.spoolDir, options.exclude ?? []);
  }

  /** The inbox's address, as the user named it (a folder). */
  get uri(): string {
    return objectUriOf(this.folder.bucket, this.folder.prefix);
  }

  private get storeDir(): string {
    return storeSpoolDir(this.spoolDir, this.store.identity);
  }

  /** The local folder its objects are spooled to: results mirror paths below it as keys below the prefix. */
  get root(): string {
    return spoolPathOf(this.storeDir, this.folder.bucket, this.folder.prefix.replace(/\/$/, ''));
  }

  /** `s3://bucket/key` for a spool file of this store. */
  addressOf(path: string): string | undefined {
    return objectAddressOf(this.spoolDir, path);
  }

  /** The version spooled at `path` and not finished yet. */
  takenAt(path: string): TakenObject | undefined {
    return this.pending.get(path);
  }

  /**
   * New objects, a listing page's at a time, every `pollMs` on `clock`, until
   * `stop`. A listing that fails is said (naming the prefix and the code)
   * and tried again later, waiting twice as long each time (up to 10 min):
   * the watch never ends on the store's errors.
   */
  async *arrivals(clock: Clock, pollMs: number, notice: (message: string) => void, stop?: AbortSignal): AsyncGenerator<string[]> {
    let failures = 0;
    while (!stop?.aborted) {
      let failed: string | undefined;
      try {
        for await (const page of this.store.list(this.folder.bucket, this.folder.prefix)) {
          const paths: string[] = [];
          for (const object of page) {
            const path = await this.considered(object, notice);
            if (path !== undefined) paths.push(path);
          }
          if (paths.length > 0) yield paths;
          if (stop?.aborted) return;
        }
        failures = 0;
      } catch (error) {
        // The store's (no bucket, denied, 503 SlowDown after the SDK's retries) or the disk's (the spool full): said, and tried again.
        failures += 1;
        const code = error instanceof ObjectStoreError ? error.code : ((error as NodeJS.ErrnoException).code ?? 'error');
        failed = `${error instanceof ObjectStoreError ? error.message : `${this.uri}: ${String(error)}`} [${code}]`;
      }
      const wait = failures === 0 ? pollMs : Math.min(pollMs * 2 ** (failures - 1), Math.max(pollMs, MAX_BACKOFF_MS));
      if (failed !== undefined) notice(`${failed}; listing ${this.uri} again in ${Math.round(wait / 1000)} s`);
      try {
        await clock.sleep(wait, stop);
      } catch {
        return; // stopped
      }
    }
  }

  /** The object's spool path when it is a new version to take; said and passed over when it is not a document. */
  private async considered(object: ObjectInfo, notice: (message: string) => void): Promise<string | undefined> {
    const { bucket, prefix } = this.folder;
    if (isFolderMarker(object.key) || this.exclude.some((folder) => folder.bucket === bucket && object.key.startsWith(folder.prefix))) return undefined;
    const uri = objectUriOf(bucket, object.key);
    const why = whyNotAFile(object.key.slice(prefix.length)) ?? unusableAsPath(object.key);
    if (why) {
      if (!this.said.has(object.key)) notice(`skipped ${uri}: ${why}`);
      this.said.add(object.key);
      return undefined;
    }
    const path = spoolPathOf(this.storeDir, bucket, object.key);
    // The same version once; a new one waits until the one in flight under the same key (and the same spool file) is done.
    if (this.tried.get(object.key) === object.etag || this.pending.has(path)) return undefined;
    // Done before: a copy a kill left between its record and its removal goes now.
    if (await this.finishedBefore(object)) return void (await rm(path, { force: true }));
    const record = readRecordPathOf(this.storeDir, bucket, object.key);
    const read = { bucket, key: object.key, etag: object.etag, size: object.size };
    if (!(await unchangedSince(record, path, read))) {
      try {
        await this.store.download(bucket, object.key, object.etag, path);
      } catch (error) {
        if (!(error instanceof ObjectStoreError)) throw error;
        // Overwritten or deleted since the listing, or the store failed: the next listing tells which.
        notice(`${error.message} [${error.code}]; not taken now, the next listing looks again`);
        return undefined;
      }
      await writeFileAtomically(record, JSON.stringify(read), { mode: 0o600 });
    }
    this.tried.set(object.key, object.etag);
    this.pending.set(path, { bucket, key: object.key, etag: object.etag });
    return path;
  }

  /**
   * The document at `path` is finished: for good (`final`, recorded so that
   * no later run takes this version again), or for a reason that may pass
   * (this run does not take it again; the next start does).
   */
  async finished(path: string, final: boolean): Promise<void> {
    const taken = this.pending.get(path);
    if (!taken) return;
    this.pending.delete(path);
    if (!final) return;
    await writeFileAtomically(this.takenRecordOf(taken.key), JSON.stringify(taken), { mode: 0o600 });
    if (this.tried.get(taken.key) === taken.etag) this.tried.delete(taken.key);
    // Recorded first: a kill in between leaves the copy for the next start to remove, never a version taken twice.
    await rm(path, { force: true });
  }

  private async finishedBefore(object: ObjectInfo): Promise<boolean> {
    try {
      const kept = JSON.parse(await readFile(this.takenRecordOf(object.key), 'utf8')) as Partial<TakenObject>;
      return kept.bucket === this.folder.bucket && kept.key === object.key && kept.etag === object.etag;
    } catch {
      return false;
    }
  }

  /** The (key, ETag) whose outcome was final: one small file per key, named by a hash (any key fits). */
  private takenRecordOf(key: string): string {
    return join(this.storeDir, 'taken', `${createHash('sha256').update(`${this.folder.bucket}\0${key}`).digest('hex')}.json`);
  }

  close(): void {
    this.store.close();
  }
}

/**
 * Results kept under an `s3://` prefix, for the commands that read a folder
 * of results (`export`, `check`, `review`) and `export --out s3://…`.
 *
 * They are copied, a listing page at a time and each object streamed, to a
 * private folder made for the command in the state folder's spool, and the
 * local code reads that folder as any other; the folder is removed when the
 * command ends. A copy rather than a reader over the store: every reader of
 * results (the walk, the ownership check, reviews beside results, a result's
 * parts) stays the one it is for folders, and memory stays that of a folder
 * walk. A fresh copy each time: a result deleted from the bucket is never
 * read from an older copy. `check` and `review` write back through the
 * copy's `write` (object-write-back.ts): put at the key first, conditionally.
 */
import { lstat, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { uptime } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { isFolderMarker, objectUriOf } from '../util/object-uri.js';
import { objectFolderOf } from './object-folder.js';
import type { ObjectStore, ObjectStoreOptions } from './object-store.js';
import { lastWritten } from './object-output.js';
import { unusableAsPath } from './object-inputs.js';
import { storeSpoolDir, writeRecordPathOf } from './spool-layout.js';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { recordEtag, writeBackWriter, type ResultsCopy } from './object-write-back.js';
import { isProcessAlive } from '../store/process-alive.js';
import { hasErrorCode } from '../store/fs-errors.js';
import { linkRefused, PRIVATE_DIR_MODE } from '../store/private-files.js';
import { preparePrivateStateDir } from '../store/private-state-dir.js';
import { refuseUnlessPrivate } from '../store/state-dir-check.js';

/** Where an `s3://` folder of results is found, and where it is copied to. */
export interface ObjectResultsOptions extends ObjectStoreOptions {
  /** The spool folder, in the state folder (private): the command's copy is made below it. */
  spoolDir: string;
}

/** A local copy of the results under a prefix, for one command. */
export interface FetchedResults {
  /** The private folder holding the copy: the prefix's keys as paths below it. */
  dir: string;
  /** Keys listed under the prefix (0: the prefix names nothing, as a folder that is not there). */
  listed: number;
  /** The `s3://` address of a file below `dir`. */
  addressOf(path: string): string;
  /**
   * Writes a file below `dir` back: put at its key first, only if the key is
   * still the version read (absent, for a key the prefix did not hold), then
   * in the copy. A key changed since fails with `object_changed`, its copy
   * then made the bucket's version. The store stays open until `close`.
   */
  write: ResultWriter;
  /** Removes the copy and closes the store. */
  close(): Promise<void>;
}

/** Which keys of a folder of results a reader needs: those listed from `listFrom` (below the folder) that `keep` names. */
export interface ResultsPick {
  /** The start of the keys below the folder to list (one result and its review: its own name). @default every key */
  listFrom?: string;
  /** Whether the key below the folder is copied. */
  keep(below: string): boolean;
}

/** Copies every `.json` key under the folder `uri` (results, their parts, their reviews), or those `pick` names, to a private folder. */
export async function fetchObjectResults(uri: string, options: ObjectResultsOptions, pick?: ResultsPick): Promise<FetchedResults> {
  const { bucket, prefix } = objectFolderOf(uri);
  const store = await opened(options);
  const root = await privateFolder(options.spoolDir, 'fetched-');
  const copy: ResultsCopy = { bucket, prefix, dir: join(root, 'results'), etagsDir: join(root, 'etags') };
  const close = async (): Promise<void> => {
    store.close();
    await rm(root, { recursive: true, force: true });
  };
  let listed = 0;
  try {
    await mkdir(copy.dir, { mode: 0o700 });
    for await (const page of store.list(bucket, `${prefix}${pick?.listFrom ?? ''}`)) {
      for (const object of page) {
        listed += 1;
        const below = object.key.slice(prefix.length);
        // Only what a folder walk of results reads; a key that names no local path is no result the tool wrote.
        if (isFolderMarker(object.key) || !below.endsWith('.json') || unusableAsPath(below) || (pick && !pick.keep(below))) continue;
        await store.download(bucket, object.key, object.etag, join(copy.dir, ...below.split('/')));
        // The version read: a write back replaces only it.
        await recordEtag(copy, object.key, object.etag);
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    dir: copy.dir,
    listed,
    addressOf: (path) => objectUriOf(bucket, `${prefix}${relative(copy.dir, path).split(sep).join('/')}`),
    write: writeBackWriter(store, copy, options.spoolDir),
    close,
  };
}

/** A private folder for `export --out s3://…` to write its tables in before they are put. */
export function localTablesFolder(options: ObjectResultsOptions): Promise<string> {
  return privateFolder(options.spoolDir, 'tables-');
}

/**
 * Puts every file below `dir` at the same relative key under the folder
 * `uri`, one PutObject each, streamed. As for results: a key this machine
 * never wrote is created only if absent, one it wrote is replaced only at
 * the ETag it wrote, so another writer's object is never overwritten
 * (`object_changed`). Returns the addresses put, in order.
 */
export async function putObjectFolder(dir: string, uri: string, options: ObjectResultsOptions, contentTypeOf: (name: string) => string): Promise<string[]> {
  const { bucket, prefix } = objectFolderOf(uri);
  const store = await opened(options);
  const storeDir = storeSpoolDir(options.spoolDir, store.identity);
  const put: string[] = [];
  try {
    for (const path of await filesBelow(dir)) {
      const key = `${prefix}${relative(dir, path).split(sep).join('/')}`;
      const record = writeRecordPathOf(storeDir, bucket, key);
      const known = await lastWritten(record, bucket, key);
      const body = { path, size: (await stat(path)).size, contentType: contentTypeOf(path) };
      const etag = await store.put(bucket, key, body, known === undefined ? { absent: true } : { etag: known });
      await writeFileAtomically(record, JSON.stringify({ bucket, key, etag }), { mode: 0o600 });
      put.push(objectUriOf(bucket, key));
    }
  } finally {
    store.close();
  }
  return put;
}

/** The SDK is loaded here, only when an `s3://` folder is named. */
async function opened(options: ObjectResultsOptions): Promise<ObjectStore> {
  return (await import('./s3-store.js')).openObjectStore(options);
}

/**
 * A folder of this process's own, named by its pid (`fetched-<pid>-…`): what a killed command (kill -9, a power cut)
 * leaves is removed by the next one, which tells its leftovers from a running command's by that pid.
 */
async function privateFolder(spoolDir: string, name: 'fetched-' | 'tables-'): Promise<string> {
  // The spool is the state folder's objects/ (client-options): held to the state folder's rules, and never a link out of it.
  await preparePrivateStateDir(dirname(spoolDir));
  await mkdir(spoolDir, { mode: PRIVATE_DIR_MODE }).catch((error: unknown) => {
    if (!hasErrorCode(error, 'EEXIST')) throw error;
  });
  const found = await lstat(spoolDir);
  if (found.isSymbolicLink()) throw linkRefused(spoolDir);
  refuseUnlessPrivate(spoolDir, found);
  await removeLeftovers(spoolDir);
  return mkdtemp(join(spoolDir, `${name}${process.pid}-`));
}

const PRIVATE_COPY = /^(?:fetched|tables)-(\d+)-[^/]+$/;
/** A private folder named before they carried their process's id (mkdtemp's six characters): whose it is, the name does not say. */
const UNNAMED_COPY = /^(?:fetched|tables)-[A-Za-z0-9]{6}$/;

/**
 * Removes the private folders of processes that are gone; a live one's (or this process's) are left alone.
 * One named without a pid is removed only when it was made before the machine last started (`bootedAt`):
 * no process alive now made it, and none takes up another's. Only entries of `spoolDir` itself are removed,
 * a symbolic link among them never followed.
 */
export async function removeLeftovers(spoolDir: string, bootedAt = machineStartedAt()): Promise<void> {
  for (const entry of await readdir(spoolDir)) {
    const path = join(spoolDir, entry);
    const pid = Number(PRIVATE_COPY.exec(entry)?.[1] ?? 0);
    if (pid > 0 ? !isProcessAlive(pid) : UNNAMED_COPY.test(entry) && (await lastChangedBefore(path, bootedAt)))
      await rm(path, { recursive: true, force: true });
  }
}

/** A folder (not a link) whose inode last changed before `instant`: it was made before then too (ctime is never older than the birth). */
async function lastChangedBefore(path: string, instant: number): Promise<boolean> {
  const found = await lstat(path).catch(() => undefined);
  return found?.isDirectory() === true && found.ctimeMs < instant;
}

/** When this machine last started. The wall clock, not the run's: it is compared with the file system's own times. */
function machineStartedAt(): number {
  return Date.now() - uptime() * 1000;
}

/** The tables of one export: a handful of files, sorted so they are put in a stable order. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * `s3://` arguments of `extract` turned into local files the planner reads as
 * any other: each object listed (a page at a time) is found as its place in
 * the spool folder (state folder), which mirrors `bucket/key`, so results
 * mirror keys exactly as a local run mirrors paths. It is downloaded there,
 * streamed, when the planner's slice reaches it (`read`), or a slice ahead
 * (`readAhead`; the first slice while the listing goes on): the first
 * documents go out while later objects are still in the bucket, and a slice
 * never waits for its own downloads.
 * Each key's read is recorded (endpoint, bucket, key, ETag, size, and once
 * checked its sha256, type and pages: object-spool.ts), and its bytes are
 * kept only until its document settles (`settled`): a rerun whose object is
 * unchanged plans it from the record without downloading it, the planner's
 * reuse (by sha256) pays nothing, and only a document that must be sent is
 * downloaded again (`ensure`). An ETag is compared only with the same key's
 * (it is no hash of the bytes: a multipart one is not even an MD5).
 */
import { stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { hasSupportedExtension, isHiddenName } from '../files/paths.js';
import type { PreflightOk } from '../files/preflight.js';
import { NAME_MAX_BYTES } from '../store/result-path.js';
import { isFolderMarker, objectUriOf, parseObjectUri, type ObjectUri } from '../util/object-uri.js';
import { objectAddressOf, readRecordPathOf, spooledObjectOf, spoolPathOf, storeSpoolDir } from './spool-layout.js';
import { knownCheck, readRecordOf, recordCheck, sameVersion, SpoolHolds, writeReadRecord } from './object-spool.js';
import type { ObjectInfo, ObjectStore, ObjectStoreOptions } from './object-store.js';
import { ObjectStoreError } from './object-store-error.js';

/** Where object inputs are read from and kept. */
export interface ObjectInputOptions extends ObjectStoreOptions {
  /** The spool folder, in the state folder: objects read, by endpoint, bucket and key. */
  spoolDir: string;
  /** Opens the store (tests pass a stand-in). @default the S3 store, its SDK loaded then */
  open?: (options: ObjectStoreOptions) => Promise<ObjectStore>;
  /** Objects downloaded as the listing finds them, before the planner asks (its first slice: sending starts once those are read). @default 0 */
  readWhileListing?: number;
}

/** The version of an object its listing (or HEAD) reported: what its download asks for, and what its spool copy is checked against. */
export interface ListedVersion {
  etag: string;
  size: number;
}

/** What the listing of one argument reports, as it goes. */
export interface ObjectFindings {
  /** An object listed: where its local copy is (or will be, once `read`), to take as a file found `via`. Nothing is downloaded yet. */
  file(path: string, via: 'file' | 'folder' | 'glob', listed: ListedVersion): Promise<void>;
  /** A key passed over, and why. */
  skip(uri: string, reason: string): void;
  /** The argument named nothing, or could not be listed. */
  problem(code: 'file_not_found' | 'no_match' | 'unreadable', message: string): void;
}

/** What reading objects cost so far: the listing's requests, the objects listed, and those downloaded or found unchanged in the spool. */
export interface ObjectFigures {
  /** Listing pages and HEAD requests sent. */
  requests: number;
  /** Keys the listings (and HEADs) reported, taken or not. */
  listed: number;
  /** The bytes of those keys. */
  listed_bytes: number;
  /** Objects downloaded (read from the store). */
  downloaded: number;
  /** The bytes downloaded. */
  downloaded_bytes: number;
  /** Objects found unchanged in the spool (same key, ETag and size): not downloaded again. */
  unchanged: number;
  /** The bytes of those. */
  unchanged_bytes: number;
}

/** What `read` found: its bytes in the spool (undefined), its check as recorded (bytes not needed to plan it), or why it could not be read. */
export type ObjectRead = ObjectUnread | PreflightOk | undefined;

/** Why an object found by its listing could not be read when its turn came (changed, deleted, refused). */
export interface ObjectUnread {
  ok: false;
  code: ObjectStoreError['code'];
  message: string;
}

/**
 * Objects downloaded at once. Each is a small request whose answer time, not
 * bandwidth, bounds the rate: moto (one Python process) served 74 GETs a
 * second 8 at once and 111 16 at once on a loaded 2-core machine, and a run
 * sending 40 documents a second needs 40 of them besides its 40 puts.
 */
const DOWNLOADS_AT_ONCE = 16;

/**
 * Object inputs of one discovery and of its planning: one store opened for
 * all its arguments, closed by `close`. `visit` lists (nothing is downloaded);
 * `read` downloads an object when the planner reaches it.
 */
export class ObjectInputs {
  private store?: Promise<ObjectStore>;
  private readonly slots = new Slots(DOWNLOADS_AT_ONCE);
  /** Reads started ahead of the planner (`readAhead`), by spool path, until `read` takes them up. */
  private readonly ahead = new Map<string, { etag: string; reading: Promise<ObjectRead> }>();
  /** Which spool files a document of this run still works on: each is removed once all of its have settled. */
  private readonly holds: SpoolHolds;
  /** Objects the listing may still start reading (`readWhileListing`). */
  private readableWhileListing: number;
  /** Filled as the listing and the reads go. */
  readonly figures: ObjectFigures = { requests: 0, listed: 0, listed_bytes: 0, downloaded: 0, downloaded_bytes: 0, unchanged: 0, unchanged_bytes: 0 };

  constructor(private readonly options: ObjectInputOptions) {
    this.readableWhileListing = options.readWhileListing ?? 0;
    this.holds = new SpoolHolds(options.spoolDir);
  }

  /** Lists `arg` (`s3://b/p/`, `s3://b/p`, `s3://b/scans/**\/*.pdf`) and reports what it names, in listing order. */
  async visit(arg: string, mayGlob: boolean, findings: ObjectFindings): Promise<void> {
    const named = namedBy(arg);
    if (!named) return findings.problem('file_not_found', 'names no bucket: write s3://BUCKET/KEY.');
    const { bucket, key } = named;
    const store = await this.opened();
    try {
      const scan = mayGlob ? picomatch.scan(key) : undefined;
      if (scan?.isGlob) {
        const matches = picomatch(key, { dot: false });
        // The listing prefix is the part before the first wildcard's segment: `scans/**/*.pdf` lists `scans/`.
        const prefix = scan.base === '' ? '' : `${scan.base}/`;
        const count = await this.listed(store, bucket, prefix, findings, 'glob', (found) => matchesOrWithin(found, matches));
        if (count === 0) findings.problem('no_match', 'no object matches this pattern.');
        return;
      }
      // `s3://b/p` is the object p if it exists, else the folder p/: never the bare prefix that also matches p2/ (aws-cli #1454).
      if (key !== '' && !isFolderMarker(key)) {
        this.figures.requests += 1;
        const object = await store.head(bucket, key);
        if (object) {
          this.count(object);
          return void (await this.found(store, bucket, object, findings, 'file'));
        }
      }
      const folder = key === '' || isFolderMarker(key) ? key : `${key}/`;
      const count = await this.listed(store, bucket, folder, findings, 'folder', () => true);
      if (count === 0) findings.problem('file_not_found', 'no such object, and no object under it as a folder.');
    } catch (error) {
      if (!(error instanceof ObjectStoreError)) throw error;
      findings.problem(error.code === 'object_not_found' ? 'file_not_found' : 'unreadable', error.message);
    }
  }

  /**
   * Makes `path` (a spool path `visit` reported) ready to plan as the version listed: found there unchanged (the key
   * index: same endpoint, bucket, key, ETag and size), known from its record without its bytes (their check, when
   * that is all planning needs: `ensure` fetches them if it must be sent), or downloaded now with `If-Match` on the
   * listed ETag, DOWNLOADS_AT_ONCE at most at a time. Undefined when its bytes are there; its recorded check when
   * they need not be; otherwise why not (changed or deleted since listed, refused).
   */
  async read(path: string, listed: ListedVersion): Promise<ObjectRead> {
    const ahead = this.ahead.get(path);
    this.ahead.delete(path);
    return ahead?.etag === listed.etag ? ahead.reading : this.fetched(path, listed, false);
  }

  /**
   * Starts reading these objects (spool paths `visit` reported, in the order the planner will ask for them)
   * without waiting: the next slice downloads while this one is checked and sent, so the sender never waits
   * for a slice's downloads. Each is taken up by its `read`; DOWNLOADS_AT_ONCE still bounds the requests.
   */
  readAhead(inputs: readonly { path: string; object?: ListedVersion }[]): void {
    for (const { path, object } of inputs) {
      if (object === undefined || this.ahead.has(path)) continue;
      const reading = this.fetched(path, object, false);
      // Its failure is `read`'s to report; none goes unhandled meanwhile.
      reading.catch(() => undefined);
      this.ahead.set(path, { etag: object.etag, reading });
    }
  }

  /** The spool file at `path`, the version listed, was checked: its record keeps what it is, so a rerun plans it without its bytes. */
  checked(path: string, listed: ListedVersion, result: PreflightOk): Promise<void> {
    return recordCheck(this.options.spoolDir, path, listed, result);
  }

  /**
   * The bytes of a document about to be sent are at `path` (a document planned from its record has none):
   * downloaded again as the version recorded, or why they cannot be (changed or deleted since).
   */
  async ensure(path: string): Promise<ObjectUnread | undefined> {
    const at = spooledObjectOf(this.options.spoolDir, path);
    if (!at) return undefined;
    const kept = await readRecordOf(readRecordPathOf(at.storeDir, at.bucket, at.key));
    if (!kept) return undefined;
    const read = await this.fetched(path, kept, true);
    return read?.ok === false ? read : undefined;
  }

  /** A document of the spool file `path` is planned: its bytes stay until it settles. */
  hold(path: string): void {
    this.holds.hold(path);
  }

  /** A document of `path` settled: its bytes are removed once none of its documents is worked on, unless `keep` (a job left open). */
  settled(path: string, keep: boolean): Promise<void> {
    return this.holds.settled(path, keep);
  }

  private async fetched(path: string, listed: ListedVersion, bytes: boolean): Promise<ObjectRead> {
    const store = await this.opened();
    const storeDir = storeSpoolDir(this.options.spoolDir, store.identity);
    const address = objectAddressOf(this.options.spoolDir, path);
    if (address === undefined) throw new Error(`not a spool path: ${path}`);
    const { bucket, key } = parseObjectUri(address);
    const record = readRecordPathOf(storeDir, bucket, key);
    const read = { bucket, key, etag: listed.etag, size: listed.size };
    const kept = await readRecordOf(record);
    const same = sameVersion(kept, read);
    const present = same && (await sizeOf(path)) === read.size;
    // Settled by an earlier run (its bytes removed): planned from its record, unless its bytes are wanted.
    const known = same && !present && !bytes ? knownCheck(kept, path) : undefined;
    if (present || known) {
      // A read counts once: making sure before sending (`ensure`) that its bytes are still there is no second read.
      if (!bytes) {
        this.figures.unchanged += 1;
        this.figures.unchanged_bytes += listed.size;
      }
      return known;
    }
    try {
      await this.slots.run(() => store.download(bucket, key, listed.etag, path));
    } catch (error) {
      if (!(error instanceof ObjectStoreError)) throw error;
      // Overwritten or deleted since it was listed: the next run takes the version there then.
      return { ok: false, code: error.code, message: `${error.message.replace(/\.$/, '')}; not read, the next run takes the version there then.` };
    }
    // A rerun after a kill takes bytes downloaded but not yet checked without downloading them again. No fsync: a record
    // cut short is no record (downloaded again), and the check (`checked`) is written in full, atomically.
    if (!sameVersion(kept, read)) await writeReadRecord(record, read);
    this.figures.downloaded += 1;
    this.figures.downloaded_bytes += listed.size;
    return undefined;
  }

  close(): void {
    this.ahead.clear();
    void this.store?.then((store) => store.close()).catch(() => undefined);
  }

  private opened(): Promise<ObjectStore> {
    const open = this.options.open ?? (async (options) => (await import('./s3-store.js')).openObjectStore(options));
    return (this.store ??= open(this.options));
  }

  private count(object: ObjectInfo): void {
    this.figures.listed += 1;
    this.figures.listed_bytes += object.size;
  }

  /** Reports the keys under `prefix` that `wanted`, a page at a time, in listing order; returns how many were reported (taken or skipped). */
  private async listed(
    store: ObjectStore,
    bucket: string,
    prefix: string,
    findings: ObjectFindings,
    via: 'folder' | 'glob',
    wanted: (key: string) => boolean,
  ): Promise<number> {
    let reported = 0;
    for await (const page of store.list(bucket, prefix)) {
      this.figures.requests += 1;
      for (const object of page) {
        this.count(object);
        if (isFolderMarker(object.key) || !wanted(object.key)) continue;
        reported += 1;
        const why = whyNotAFile(object.key.slice(prefix.length));
        if (why) findings.skip(objectUriOf(bucket, object.key), why);
        else await this.found(store, bucket, object, findings, via);
      }
    }
    return reported;
  }

  /** Reports the object as found at its spool path, or passes it over when its key names no path. */
  private async found(store: ObjectStore, bucket: string, object: ObjectInfo, findings: ObjectFindings, via: 'file' | 'folder' | 'glob'): Promise<void> {
    const unusable = unusableAsPath(object.key);
    if (unusable) return findings.skip(objectUriOf(bucket, object.key), unusable);
    const path = spoolPathOf(storeSpoolDir(this.options.spoolDir, store.identity), bucket, object.key);
    const listed = { etag: object.etag, size: object.size };
    await findings.file(path, via, listed);
    // The first slice downloads while later pages are listed (the planner's order is the listing's).
    if (this.readableWhileListing > 0) {
      this.readableWhileListing -= 1;
      this.readAhead([{ path, object: listed }]);
    }
  }
}

/** A bound on work at once, shared by every caller: the planner checks files in parallel, the store is asked a few at a time. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}

/** The bucket and key of `arg`, or none when it names no bucket (`s3://`, `s3:///k`). */
function namedBy(arg: string): ObjectUri | undefined {
  try {
    return parseObjectUri(arg);
  } catch {
    return undefined;
  }
}

/** A key matched by the glob, or inside a folder it matches (as a local glob walks a folder it matches). */
function matchesOrWithin(key: string, matches: (path: string) => boolean): boolean {
  const segments = key.split('/');
  for (let depth = segments.length; depth > 0; depth--) if (matches(segments.slice(0, depth).join('/'))) return true;
  return false;
}

/** As a folder's walk passes files over: hidden ones, and names of other types (a key without an extension is taken: its bytes say its type). */
export function whyNotAFile(below: string): string | undefined {
  const segments = below.split('/');
  const hidden = segments.findIndex((segment) => isHiddenName(segment));
  if (hidden >= 0) return hidden === segments.length - 1 ? 'hidden file' : 'hidden folder (not searched)';
  const name = segments[segments.length - 1] as string;
  if (name.includes('.') && !hasSupportedExtension(name)) return 'not a PDF, JPEG or PNG file name (.pdf, .jpg, .jpeg, .png)';
  return undefined;
}

/** A key that names no path below the spool folder (`..`, an empty segment, a name too long): never downloaded. */
export function unusableAsPath(key: string): string | undefined {
  const segments = key.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('\0')))
    return 'key has an empty, "." or ".." segment: it names no local path';
  if (segments.some((segment) => Buffer.byteLength(segment) > NAME_MAX_BYTES)) return `key has a segment longer than ${NAME_MAX_BYTES} bytes`;
  return undefined;
}

/** The spool file is this very version of the key (same ETag and size as recorded when it was downloaded). */
export async function unchangedSince(record: string, path: string, read: { bucket: string; key: string; etag: string; size: number }): Promise<boolean> {
  return sameVersion(await readRecordOf(record), read) && (await sizeOf(path)) === read.size;
}

/** The size of the file at `path`; undefined when it is not there (never read, or settled and removed). */
async function sizeOf(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.size;
}

/**
 * `s3://` arguments of `extract` turned into local files the planner reads as
 * any other: each object listed (a page at a time) is downloaded, streamed, to
 * its place in the spool folder (state folder), which mirrors
 * `bucket/key`, so results mirror keys exactly as a local run mirrors paths.
 * A spool file is kept with the (endpoint, bucket, key, ETag, size) it was
 * read as: a rerun whose object is unchanged downloads nothing, and the
 * planner's reuse (by sha256) pays nothing. An ETag is compared only with the
 * same key's (it is no hash of the bytes: a multipart one is not even an MD5).
 */
import { readFile, stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { hasSupportedExtension, isHiddenName } from '../files/paths.js';
import { writeFileAtomically } from '../store/atomic-write.js';
import { NAME_MAX_BYTES } from '../store/result-path.js';
import { isFolderMarker, objectUriOf, parseObjectUri, type ObjectUri } from '../util/object-uri.js';
import { readRecordPathOf, spoolPathOf, storeSpoolDir } from './spool-layout.js';
import type { ObjectInfo, ObjectStore, ObjectStoreOptions } from './object-store.js';
import { ObjectStoreError } from './object-store-error.js';

/** Where object inputs are read from and kept. */
export interface ObjectInputOptions extends ObjectStoreOptions {
  /** The spool folder, in the state folder: objects read, by endpoint, bucket and key. */
  spoolDir: string;
  /** Opens the store (tests pass a stand-in). @default the S3 store, its SDK loaded then */
  open?: (options: ObjectStoreOptions) => Promise<ObjectStore>;
}

/** What the listing of one argument reports, as it goes. */
export interface ObjectFindings {
  /** An object downloaded (or unchanged since): its local copy, to take as a file found `via`. */
  file(path: string, via: 'file' | 'folder' | 'glob'): Promise<void>;
  /** A key passed over, and why. */
  skip(uri: string, reason: string): void;
  /** The argument named nothing, or could not be listed. */
  problem(code: 'file_not_found' | 'no_match' | 'unreadable', message: string): void;
}

/** Objects of a listing downloaded at once (S3 serves many; moto, one Python process, serves 8 well). */
const DOWNLOADS_AT_ONCE = 8;

/** How a listed object is reported once its turn comes: taken as a file, or passed over. */
type Report = () => Promise<void> | void;

/** Object inputs of one discovery: one store opened for all its arguments, closed by `close`. */
export class ObjectInputs {
  private store?: Promise<ObjectStore>;

  constructor(private readonly options: ObjectInputOptions) {}

  /** Lists `arg` (`s3://b/p/`, `s3://b/p`, `s3://b/scans/**\/*.pdf`) and downloads what it names. */
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
        const object = await store.head(bucket, key);
        if (object) return void (await this.take(store, bucket, object, findings, 'file'));
      }
      const folder = key === '' || isFolderMarker(key) ? key : `${key}/`;
      const count = await this.listed(store, bucket, folder, findings, 'folder', () => true);
      if (count === 0) findings.problem('file_not_found', 'no such object, and no object under it as a folder.');
    } catch (error) {
      if (!(error instanceof ObjectStoreError)) throw error;
      findings.problem(error.code === 'object_not_found' ? 'file_not_found' : 'unreadable', error.message);
    }
  }

  close(): void {
    void this.store?.then((store) => store.close()).catch(() => undefined);
  }

  private opened(): Promise<ObjectStore> {
    const open = this.options.open ?? (async (options) => (await import('./s3-store.js')).openObjectStore(options));
    return (this.store ??= open(this.options));
  }

  /**
   * Takes the keys under `prefix` that `wanted`, a page at a time, reported in listing order; returns how many were reported (taken or skipped).
   * Up to DOWNLOADS_AT_ONCE objects are downloaded while the earlier ones are reported: one at a time, a run took no more
   * objects a second than one round trip to the store allows (~7 a second on a busy 2-core machine, against keys of 40).
   */
  private async listed(
    store: ObjectStore,
    bucket: string,
    prefix: string,
    findings: ObjectFindings,
    via: 'folder' | 'glob',
    wanted: (key: string) => boolean,
  ): Promise<number> {
    let reported = 0;
    // Each settled, never rejected: a failure is thrown when its turn comes, and none goes unhandled meanwhile.
    const ahead: Promise<{ report: Report } | { error: unknown }>[] = [];
    const reportNext = async (): Promise<void> => {
      const next = await ahead.shift();
      if (next === undefined) return;
      if ('error' in next) throw next.error;
      await next.report();
    };
    for await (const page of store.list(bucket, prefix)) {
      for (const object of page) {
        if (isFolderMarker(object.key) || !wanted(object.key)) continue;
        reported += 1;
        const below = object.key.slice(prefix.length);
        const why = whyNotAFile(below);
        const report = why
          ? Promise.resolve<Report>(() => findings.skip(objectUriOf(bucket, object.key), why))
          : this.fetched(store, bucket, object, findings, via);
        ahead.push(
          report.then(
            (done) => ({ report: done }),
            (error: unknown) => ({ error }),
          ),
        );
        if (ahead.length >= DOWNLOADS_AT_ONCE) await reportNext();
      }
    }
    while (ahead.length > 0) await reportNext();
    return reported;
  }

  private async take(store: ObjectStore, bucket: string, object: ObjectInfo, findings: ObjectFindings, via: 'file' | 'folder' | 'glob'): Promise<void> {
    await (
      await this.fetched(store, bucket, object, findings, via)
    )();
  }

  /** Downloads the object unless its spool copy is this very version; resolves to its report (taken, or passed over with why). */
  private async fetched(store: ObjectStore, bucket: string, object: ObjectInfo, findings: ObjectFindings, via: 'file' | 'folder' | 'glob'): Promise<Report> {
    const uri = objectUriOf(bucket, object.key);
    const unusable = unusableAsPath(object.key);
    if (unusable) return () => findings.skip(uri, unusable);
    const storeDir = storeSpoolDir(this.options.spoolDir, store.identity);
    const path = spoolPathOf(storeDir, bucket, object.key);
    const record = readRecordPathOf(storeDir, bucket, object.key);
    const read = { bucket, key: object.key, etag: object.etag, size: object.size };
    if (!(await unchangedSince(record, path, read))) {
      try {
        await store.download(bucket, object.key, object.etag, path);
      } catch (error) {
        if (!(error instanceof ObjectStoreError)) throw error;
        // Overwritten or deleted since it was listed: the next run takes the new version.
        return () => findings.skip(uri, error.message);
      }
      await writeFileAtomically(record, JSON.stringify(read), { mode: 0o600 });
    }
    return () => findings.file(path, via);
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
  try {
    const kept = JSON.parse(await readFile(record, 'utf8')) as typeof read;
    if (kept.bucket !== read.bucket || kept.key !== read.key || kept.etag !== read.etag || kept.size !== read.size) return false;
    return (await stat(path)).size === read.size;
  } catch {
    return false;
  }
}

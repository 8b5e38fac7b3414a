/**
 * `--out s3://bucket/prefix/`: the run writes its results, as always, in a
 * folder (a mirror in the state folder, where reuse and resume find them),
 * and each result is first put at the same relative key under the prefix.
 * The put comes first: a write the store did not acknowledge leaves no local
 * result, so the run's own failure path keeps the paid answer in the state
 * folder, finalizes nothing, and the next run writes it without paying.
 */
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { isFolderMarker, parseObjectUri } from '../util/object-uri.js';
import type { ObjectStore, ObjectStoreOptions } from './object-store.js';
import { resultMirrorOf, storeSpoolDir, writeRecordPathOf } from './spool-layout.js';

/** Where an `s3://` output is mirrored locally, and the writer that puts each result at its key first. */
export interface ObjectOutput {
  /** The local folder the run writes to (its results mirror the keys). */
  mirrorDir: string;
  /** Wraps the run's writer: put at the key (conditionally), then written locally by `local`. */
  writer(local?: ResultWriter): ResultWriter;
  close(): void;
}

/** Opens the store for `uri` (`s3://bucket/prefix/`; a prefix without `/` is taken as a folder, as a local --out is). */
export async function openObjectOutput(
  uri: string,
  options: ObjectStoreOptions & { spoolDir: string; open?: (options: ObjectStoreOptions) => Promise<ObjectStore> },
): Promise<ObjectOutput> {
  const { bucket, key } = parseObjectUri(uri);
  const prefix = key === '' || isFolderMarker(key) ? key : `${key}/`;
  const open = options.open ?? (async (settings) => (await import('./s3-store.js')).openObjectStore(settings));
  const store = await open(options);
  const storeDir = storeSpoolDir(options.spoolDir, store.identity);
  const mirrorDir = resultMirrorOf(storeDir, bucket, prefix);
  return {
    mirrorDir,
    writer: (local = writeFileAtomically) => {
      const put: ResultWriter = async (path, text, writeOptions) => {
        const below = relative(mirrorDir, path);
        // Only the results under the mirror go to the bucket (a kept answer, say, stays local).
        if (below.startsWith('..') || below === '') return local(path, text, writeOptions);
        const objectKey = `${prefix}${below.split(sep).join('/')}`;
        const record = writeRecordPathOf(storeDir, bucket, objectKey);
        const known = await lastWritten(record, bucket, objectKey);
        const etag = await store.put(bucket, objectKey, text, known === undefined ? { absent: true } : { etag: known });
        // A cache of what the store said: lost, the next overwrite is refused as another writer's (object_changed), never made blind.
        await writeFileAtomically(record, JSON.stringify({ bucket, key: objectKey, etag }), { mode: 0o600, durable: false });
        await local(path, text, writeOptions);
      };
      // The run keeps each answer in the state folder before this put (result-flow.ts): a kill during it pays nothing twice.
      put.remote = true;
      return put;
    },
    close: () => store.close(),
  };
}

/** The ETag this machine wrote last at the key, if its record says so. */
export async function lastWritten(record: string, bucket: string, key: string): Promise<string | undefined> {
  try {
    const kept = JSON.parse(await readFile(record, 'utf8')) as { bucket?: string; key?: string; etag?: string };
    return kept.bucket === bucket && kept.key === key && typeof kept.etag === 'string' ? kept.etag : undefined;
  } catch {
    return undefined;
  }
}

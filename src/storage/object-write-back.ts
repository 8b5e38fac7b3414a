/**
 * Writing back to results read from an `s3://` prefix (a review's
 * corrections, `check`'s verdicts): the local code writes its files in the
 * command's copy as it writes in a folder, through this writer, which first
 * puts the file at its key, conditionally, on the ETag the copy was read at
 * (`If-Match`), or only where no object is (`If-None-Match: *`) for a file
 * the prefix did not hold (a first review). An object another writer changed
 * since it was read is never overwritten: the put answers 412, the copy takes
 * the bucket's version (so a reload shows it), and the write fails with
 * `object_changed`. The ETags read are kept on disk beside the copy, one
 * small file per key: memory stays that of a folder's walk at any size.
 */
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { writeFileAtomically, type ResultWriter } from '../store/atomic-write.js';
import { isReviewSidecar, reviewedResultOf } from '../store/result-names.js';
import { objectUriOf } from '../util/object-uri.js';
import type { ObjectStore } from './object-store.js';
import { ObjectStoreError } from './object-store-error.js';
import { storeSpoolDir, writeRecordPathOf } from './spool-layout.js';

/** A copy of the results under `prefix` in `bucket`, in `dir`, with the ETag of each key read kept in `etagsDir`. */
export interface ResultsCopy {
  bucket: string;
  prefix: string;
  dir: string;
  etagsDir: string;
}

/** Records the ETag `key` was read (or last written) at. */
export async function recordEtag(copy: ResultsCopy, key: string, etag: string): Promise<void> {
  await mkdir(copy.etagsDir, { recursive: true, mode: 0o700 });
  await writeFile(etagPathOf(copy, key), etag, { mode: 0o600 });
}

/** The writer of files below `copy.dir`: each put at its key (conditionally) before it is written in the copy. */
export function writeBackWriter(store: ObjectStore, copy: ResultsCopy, spoolDir: string): ResultWriter {
  const storeDir = storeSpoolDir(spoolDir, store.identity);
  const keyOf = (path: string): string => `${copy.prefix}${relative(copy.dir, path).split(sep).join('/')}`;
  const pathOf = (key: string): string => join(copy.dir, ...key.slice(copy.prefix.length).split('/'));

  /** The copy of `key` made the bucket's version again (or removed, when the key is gone), so what is shown is what is there. */
  const refresh = async (key: string): Promise<void> => {
    try {
      const now = await store.head(copy.bucket, key);
      if (!now) {
        await Promise.all([rm(pathOf(key), { force: true }), rm(etagPathOf(copy, key), { force: true })]);
        return;
      }
      await store.download(copy.bucket, key, now.etag, pathOf(key));
      await recordEtag(copy, key, now.etag);
    } catch {
      // The conflict is what the caller reports; the copy is read again by the next command.
    }
  };

  return async (path, text, options) => {
    const key = keyOf(path);
    // A review is of one version of its result: one re-extracted in the bucket since it was read gets no review of the old one.
    if (isReviewSidecar(key)) {
      const resultKey = reviewedResultOf(key);
      const read = await etagOf(copy, resultKey);
      const now = await store.head(copy.bucket, resultKey);
      if (now?.etag !== read) {
        await refresh(resultKey);
        throw new ObjectStoreError(
          'object_changed',
          `${objectUriOf(copy.bucket, resultKey)}: the result changed in the bucket since it was read (another writer); nothing was saved.`,
        );
      }
    }
    const read = await etagOf(copy, key);
    let etag: string;
    try {
      etag = await store.put(copy.bucket, key, text, read === undefined ? { absent: true } : { etag: read });
    } catch (error) {
      if (error instanceof ObjectStoreError && error.code === 'object_changed') await refresh(key);
      throw error;
    }
    await recordEtag(copy, key, etag);
    // This machine wrote it last: a later run's put of the same key (extract --force, export --out) replaces it at this ETag.
    await writeFileAtomically(writeRecordPathOf(storeDir, copy.bucket, key), JSON.stringify({ bucket: copy.bucket, key, etag }), { mode: 0o600 });
    await writeFileAtomically(path, text, options);
  };
}

async function etagOf(copy: ResultsCopy, key: string): Promise<string | undefined> {
  return readFile(etagPathOf(copy, key), 'utf8').catch(() => undefined);
}

function etagPathOf(copy: ResultsCopy, key: string): string {
  return join(copy.etagsDir, createHash('sha256').update(key).digest('hex'));
}

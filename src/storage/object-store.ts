/**
 * What the tool asks of object storage, whatever answers it: an object's
 * facts, a folder's listing a page at a time, an object's bytes to a file.
 * `openObjectStore` (s3-store.ts) is the one that loads the AWS SDK.
 */

/** An object as a listing or a HEAD reports it. The ETag names this version of this key only: never compared across keys. */
export interface ObjectInfo {
  key: string;
  /** As the store sends it, quotes included. Not a hash of the bytes: a multipart upload's is not even an MD5. */
  etag: string;
  size: number;
}

/** Where the tool finds the store and how it talks to it. */
export interface ObjectStoreOptions {
  /** A custom endpoint (MinIO, R2, Ceph, moto): path-style addressing then. @default AWS's own, from the SDK's configuration */
  endpoint?: string;
  /** Keys asked for per listing page (S3 answers at most 1,000). @default setting `s3-page-size` */
  pageSize?: number;
  /** Each request's limit, so a stalled connection fails rather than hangs. @default 60000 */
  requestTimeoutMs?: number;
  /** The variables the SDK's default credential chain and region read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** A local file put as an object's body, streamed (a table of any size never sits in memory). */
interface LocalFileBody {
  path: string;
  size: number;
  contentType: string;
}

export interface ObjectStore {
  /** Names the store in the local index of objects read: the endpoint, or `aws`. */
  readonly identity: string;
  /** The object at exactly this key, or none (404). */
  head(bucket: string, key: string): Promise<ObjectInfo | undefined>;
  /** The keys under `prefix`, in the store's (byte) order, one page at a time: a million keys never sit in memory. */
  list(bucket: string, prefix: string): AsyncGenerator<ObjectInfo[]>;
  /** The object's bytes streamed to `path`, only while it is still the version `etag` names (412 otherwise). */
  download(bucket: string, key: string, etag: string, path: string): Promise<void>;
  /**
   * Writes `body` at `key` in one PutObject (atomic: a reader sees the old
   * object or the new one), only if the key is still as the writer last
   * knew it: absent (`If-None-Match: *`) or at the ETag it wrote (`If-Match`).
   * Another writer's object is never silently replaced (412). Returns the new ETag.
   */
  put(bucket: string, key: string, body: string | LocalFileBody, expected: { absent: true } | { etag: string }): Promise<string>;
  /** Closes its connections. */
  close(): void;
  /**
   * Copies `key`, only while it is still the version `etag` names
   * (`CopySourceIfMatch`), to `toKey` in `toBucket` (same store), only where
   * no object is (`If-None-Match: *`): 412 otherwise. Returns the copy's ETag.
   */
  copy(bucket: string, key: string, etag: string, to: { bucket: string; key: string }): Promise<string>;
  /** Deletes `key` only while it is still the version `etag` names (DeleteObject `If-Match`): 412 otherwise, and a newer upload stays. */
  remove(bucket: string, key: string, etag: string): Promise<void>;
}

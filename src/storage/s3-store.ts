/**
 * The object store over `@aws-sdk/client-s3`, loaded here by `import()` and
 * only here: a command that names no `s3://` never pays its ~400 ms start-up.
 * The SDK's defaults changed where they hurt (DESIGN-NOTES, eighth wave): a
 * request timeout (its own is none), path-style addressing and checksums only
 * when required on custom endpoints (R2, B2, older MinIO refuse the rest).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { ObjectInfo, ObjectStore, ObjectStoreOptions } from './object-store.js';
import { ObjectStoreError, objectStoreError } from './object-store-error.js';
import { settingDefault } from '../config/settings.js';

const DEFAULT_PAGE_SIZE: number = settingDefault('s3-page-size');
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Downloads of one object whose body broke off before it fails: a reset is usually passing, a body that always breaks is not. */
const BODY_ATTEMPTS = 3;

export async function openObjectStore(options: ObjectStoreOptions = {}): Promise<ObjectStore> {
  const sdk = await import('@aws-sdk/client-s3');
  const env = options.env ?? process.env;
  const endpoint = options.endpoint ?? (env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined);
  const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const client = new sdk.S3Client({
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { requestTimeout: timeout, connectionTimeout: Math.min(timeout, 10_000) },
    maxAttempts: 4,
    // The chain's first link, from the environment the command was given (a library caller's or a test's may not be process.env).
    ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: env.AWS_ACCESS_KEY_ID,
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
  });
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const asked = async <T>(what: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      throw objectStoreError(what, error);
    }
  };
  /** Streams the object to `path`; what cut its body short when it was (the request's own errors are thrown). */
  const downloadOnce = async (bucket: string, key: string, etag: string, path: string): Promise<string | undefined> => {
    // Written beside its place and renamed: a download cut off (kill -9, a reset) never looks like the object.
    const partial = `${path}.part-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      const answer = await asked(`s3://${bucket}/${key}`, () => client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key, IfMatch: etag })));
      const sink = createWriteStream(partial, { mode: 0o600 });
      try {
        await pipeline(answer.Body as Readable, sink);
      } catch (error) {
        // A body reset before the stream's own open finished: the file is made after pipeline gives up, and
        // the clean-up below must wait for it (else a partial copy is left behind).
        if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
        return `the connection broke off in the middle of the body (${error instanceof Error ? error.message : String(error)})`;
      }
      // A connection cut mid-body can end the stream without an error: only the whole length counts as the object.
      const got = (await stat(partial)).size;
      if (answer.ContentLength !== undefined && got !== answer.ContentLength) return `the body was cut short (${got} of ${answer.ContentLength} bytes)`;
      await rename(partial, path);
      return undefined;
    } catch (error) {
      throw error instanceof ObjectStoreError ? error : objectStoreError(`s3://${bucket}/${key}`, error);
    } finally {
      await rm(partial, { force: true });
    }
  };
  return {
    identity: endpoint ?? 'aws',
    async head(bucket, key) {
      try {
        const answer = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { key, etag: answer.ETag ?? '', size: answer.ContentLength ?? 0 };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw objectStoreError(`s3://${bucket}/${key}`, error);
      }
    },
    async *list(bucket, prefix) {
      let token: string | undefined;
      do {
        const page = await asked(`s3://${bucket}/${prefix}`, () =>
          client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, ContinuationToken: token })),
        );
        yield (page.Contents ?? []).map((entry): ObjectInfo => ({ key: entry.Key ?? '', etag: entry.ETag ?? '', size: entry.Size ?? 0 }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async download(bucket, key, etag, path) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // The SDK retries a request, not its body: a connection reset mid-body is downloaded again here, a few times.
      for (let attempt = 1; ; attempt++) {
        const cut = await downloadOnce(bucket, key, etag, path);
        if (cut === undefined) return;
        if (attempt >= BODY_ATTEMPTS) throw new ObjectStoreError('object_store_failed', `s3://${bucket}/${key}: ${cut}, ${BODY_ATTEMPTS} downloads in a row.`);
      }
    },
    async put(bucket, key, body, expected) {
      const answer = await asked(`s3://${bucket}/${key}`, () =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket: bucket,
            Key: key,
            // A file is streamed with its length (a PutObject needs it): one request, whatever its size.
            ...(typeof body === 'string'
              ? { Body: body, ContentType: 'application/json' }
              : { Body: createReadStream(body.path), ContentLength: body.size, ContentType: body.contentType }),
            ...('etag' in expected ? { IfMatch: expected.etag } : { IfNoneMatch: '*' }),
          }),
        ),
      );
      return answer.ETag ?? '';
    },
    close: () => client.destroy(),
    async copy(bucket, key, etag, to) {
      const answer = await asked(`s3://${bucket}/${key}`, () =>
        client.send(
          new sdk.CopyObjectCommand({
            Bucket: to.bucket,
            Key: to.key,
            CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
            CopySourceIfMatch: etag,
            IfNoneMatch: '*',
          }),
        ),
      );
      return answer.CopyObjectResult?.ETag ?? '';
    },
    async remove(bucket, key, etag) {
      await asked(`s3://${bucket}/${key}`, () => client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key, IfMatch: etag })));
    },
  };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

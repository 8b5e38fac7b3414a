/** The test's own hands on a bucket (through the SDK, as any other program would): make buckets, put and list objects. */
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { MOTO_CREDENTIALS, type RunningMoto } from './moto.js';

export interface TestBucket {
  put(key: string, body: Uint8Array | string): Promise<string>;
  keys(prefix?: string): Promise<string[]>;
}

export function s3ClientFor(moto: RunningMoto): S3Client {
  return new S3Client({
    endpoint: moto.url,
    forcePathStyle: true,
    region: MOTO_CREDENTIALS.AWS_REGION,
    credentials: { accessKeyId: MOTO_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: MOTO_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
  });
}

/** Creates `name` on the server and returns a handle on it. */
export async function makeBucket(client: S3Client, name: string): Promise<TestBucket> {
  await client.send(new CreateBucketCommand({ Bucket: name }));
  return {
    put: async (key, body) => (await client.send(new PutObjectCommand({ Bucket: name, Key: key, Body: body }))).ETag ?? '',
    keys: async (prefix = '') => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: name, Prefix: prefix, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((entry) => entry.Key ?? ''));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
  };
}

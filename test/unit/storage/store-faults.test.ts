/**
 * What moto cannot do, by the stand-in in front of it: a 503 SlowDown on a
 * listing page, retried by the SDK within its attempts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectInputs, type ObjectFindings } from '../../../src/storage/object-inputs.js';
import { startMoto, type RunningMoto } from '../../helpers/moto.js';
import { makeBucket, s3ClientFor } from '../../helpers/s3-objects.js';
import { startS3StandIn, type S3StandIn } from '../../helpers/s3-stand-in.js';

let moto: RunningMoto;
let s3: S3Client;
let standIn: S3StandIn;
beforeAll(async () => {
  moto = await startMoto();
  s3 = s3ClientFor(moto);
  standIn = await startS3StandIn(moto.url);
}, 60_000);
afterAll(async () => {
  s3?.destroy();
  await Promise.all([moto?.close(), standIn?.close()]);
});

function visitor(): ObjectFindings & { files: string[]; skipped: string[]; problems: string[] } {
  const found = { files: [] as string[], skipped: [] as string[], problems: [] as string[] };
  return {
    ...found,
    file: async (path) => void found.files.push(path),
    skip: (uri, reason) => void found.skipped.push(`${uri}: ${reason}`),
    problem: (code, message) => void found.problems.push(`${code}: ${message}`),
  };
}

describe('object inputs through faults', () => {
  it('a listing answered 503 SlowDown three times is retried (4 attempts, one more than the SDK default) and read', async () => {
    const bucket = await makeBucket(s3, 'slow-listing');
    await bucket.put('in/a.pdf', '%PDF-1.4');
    standIn.slowDown((req) => (req.url ?? '').includes('list-type=2'), 3);
    const inputs = new ObjectInputs({ spoolDir: mkdtempSync(join(tmpdir(), 'docextract-spool-')), endpoint: standIn.url, env: moto.env });
    const found = visitor();
    await inputs.visit('s3://slow-listing/in/', true, found);
    inputs.close();
    expect(found.problems).toEqual([]);
    expect(found.files).toHaveLength(1);
  });
});

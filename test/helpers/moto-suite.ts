/**
 * The set-up every S3 integration file shares: a moto_server (the file fails,
 * saying so, without moto) and an emulator started for the file, a client of
 * the test's own on the server, every bucket cleared before each test, and a
 * fresh environment (its own HOME and state folder) reaching both. The
 * moto_server is one per test worker, started by the first such file the
 * worker runs: a start is ~2 CPU-seconds of Python, and files in a worker run
 * one at a time, each test on a store the reset before it emptied.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from './emulator-run.js';
import { startMoto, type RunningMoto } from './moto.js';

import { s3ClientFor } from './s3-objects.js';
import { CORPUS } from './workspace.js';

/** This worker's moto_server, once a file asked for it; it ends with the worker. On globalThis: one per process, whatever modules a file re-evaluates. */
const WORKER_MOTO = Symbol.for('docextract.test.workerMoto');
const held = globalThis as { [WORKER_MOTO]?: Promise<RunningMoto> };

function sharedMoto(): Promise<RunningMoto> {
  held[WORKER_MOTO] ??= startMoto({ tiedToThisProcess: true }).catch((error: unknown) => {
    held[WORKER_MOTO] = undefined; // the next file tries again, and fails saying why
    throw error;
  });
  return held[WORKER_MOTO];
}

export interface MotoSuite {
  moto: RunningMoto;
  s3: S3Client;
  emu: RunningEmulator;
  /** An environment with its own HOME (so its own state folder), reaching the emulator and moto. */
  env(): NodeJS.ProcessEnv;
  /** Requests that paid the service (uploads and chunk processing). */
  paidRequests(): number;
  /** The text of an object, read with the test's own client. */
  objectText(bucket: string, key: string): Promise<string>;
}

/** Registers the file's hooks; the suite's fields are there once beforeAll has run. */
export function useMotoSuite(): MotoSuite {
  const suite = {
    env: () => emulatorEnv(suite.emu, { ...suite.moto.env, HOME: mkdtempSync(join(tmpdir(), 'docextract-s3-home-')) }),
    paidRequests: () => suite.emu.counters.requestsByEndpoint.documents + suite.emu.counters.requestsByEndpoint.process,
    objectText: async (bucket: string, key: string) => {
      const answer = await suite.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await answer.Body?.transformToString('utf8')) ?? '';
    },
  } as MotoSuite;
  beforeAll(async () => {
    [suite.moto, suite.emu] = await Promise.all([sharedMoto(), startTestEmulator()]);
    suite.s3 = s3ClientFor(suite.moto);
  }, 60_000);
  afterAll(async () => {
    suite.s3?.destroy();
    await suite.emu?.close();
  });
  beforeEach(async () => suite.moto.reset());
  return suite;
}

/** A file of the test corpus. */
export function corpusFile(name: string): Buffer {
  return readFileSync(join(CORPUS, name));
}

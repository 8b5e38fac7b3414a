/**
 * The set-up every S3 test file shares: a moto_server (the file fails, saying
 * so, without moto), a client of the test's own on the server, every bucket
 * cleared before each test, and, when the file asks, the S3 stand-in in front
 * of moto (useMotoStore). The files that run the service too add an emulator
 * started for the file and a fresh environment (its own HOME and state
 * folder) reaching both (useMotoSuite). The moto_server is one per test
 * worker, started by the first such file the worker runs: a start is ~2
 * CPU-seconds of Python, and files in a worker run one at a time, each test on
 * a store the reset before it emptied.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from './emulator-run.js';
import { startMoto, type RunningMoto } from './moto.js';
import { s3ClientFor } from './s3-objects.js';
import { startS3StandIn, type S3StandIn } from './s3-stand-in.js';
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

export interface MotoStore {
  moto: RunningMoto;
  s3: S3Client;
  /** The S3 stand-in in front of moto, for what moto cannot do (503 SlowDown, held requests, a body cut off): with `{ standIn: true }` only. */
  standIn: S3StandIn;
  /** The text of an object, read with the test's own client. */
  objectText(bucket: string, key: string): Promise<string>;
}

interface MotoStoreOptions {
  /** Start the S3 stand-in for the file. @default false */
  standIn?: boolean;
}

/** Registers the file's hooks for moto (and the stand-in); the store's fields are there once beforeAll has run. */
export function useMotoStore(options: MotoStoreOptions = {}): MotoStore {
  const store = {
    objectText: async (bucket: string, key: string) => {
      const answer = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await answer.Body?.transformToString('utf8')) ?? '';
    },
  } as MotoStore;
  beforeAll(async () => {
    store.moto = await sharedMoto();
    store.s3 = s3ClientFor(store.moto);
    if (options.standIn) store.standIn = await startS3StandIn(store.moto.url);
  }, 60_000);
  afterAll(async () => {
    store.s3?.destroy();
    await store.standIn?.close();
  });
  beforeEach(async () => store.moto.reset());
  return store;
}

export interface MotoSuite extends MotoStore {
  emu: RunningEmulator;
  /** An environment with its own HOME (so its own state folder), reaching the emulator and moto. */
  env(): NodeJS.ProcessEnv;
  /** Requests that paid the service (uploads and chunk processing). */
  paidRequests(): number;
}

/** useMotoStore and an emulator started for the file (with `emulator`); the suite's fields are there once beforeAll has run. */
export function useMotoSuite(options: MotoStoreOptions & { emulator?: EmulatorOptions } = {}): MotoSuite {
  const suite = useMotoStore(options) as MotoSuite;
  suite.env = () => emulatorEnv(suite.emu, { ...suite.moto.env, HOME: mkdtempSync(join(tmpdir(), 'docextract-s3-home-')) });
  suite.paidRequests = () => suite.emu.counters.requestsByEndpoint.documents + suite.emu.counters.requestsByEndpoint.process;
  beforeAll(async () => void (suite.emu = await startTestEmulator(options.emulator)));
  afterAll(async () => suite.emu?.close());
  return suite;
}

/** A file of the test corpus. */
export function corpusFile(name: string): Buffer {
  return readFileSync(join(CORPUS, name));
}

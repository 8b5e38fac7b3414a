import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ApiFailure } from './api-failure.js';
import { createCounters } from './counters.js';
import {
  DEFAULT_CLAIM_TIMEOUT_MS,
  DEFAULT_OPEN_JOB_CAP,
  DEFAULT_OVERSIZE_BYTES,
  DEFAULT_RATE_LIMITS,
  DEFAULT_SLOW_MS,
  DEFAULT_TTL_MS,
  SMALL_BODY_CAP,
} from './defaults.js';
import { FaultInjector } from './fault-injector.js';
import { ForeignClient, openForeignJobs } from './foreign-traffic.js';
import { handleDocuments } from './handlers/documents.js';
import { handleAuthorised, handleHealth, handleModels } from './handlers/info.js';
import { handleProcess } from './handlers/process.js';
import { handleResult } from './handlers/result.js';
import { DOCUMENTS_BODY_CAP } from './handlers/upload-validation.js';
import { readBody, type ReceivedBody } from './http/body.js';
import { buildGzipBomb } from './http/lying-bodies.js';
import { Exchange, type ExchangeEnvironment } from './http/exchange.js';
import { routeRequest } from './http/router.js';
import { JobStore } from './job-store.js';
import { mulberry32 } from './prng.js';
import { generateDemoKey, KeyRegistry } from './key-registry.js';
import { RateLimiter } from './rate-limiter.js';
import { ServerClock } from './server-clock.js';
import { emitEvent, type EmulatorState } from './state.js';
import { TEMPLATE_NAMES } from './templates.js';
import type { EmulatorEndpoint, EmulatorOptions, Latency, RunningEmulator } from './types.js';

type Handler = (state: EmulatorState, exchange: Exchange, body: ReceivedBody) => Promise<void>;

const HANDLERS: Record<EmulatorEndpoint, Handler> = {
  documents: handleDocuments,
  process: handleProcess,
  result: (state, exchange) => handleResult(state, exchange),
  models: (state, exchange) => handleModels(state, exchange),
  health: (state, exchange) => handleHealth(state, exchange),
  authorised: (state, exchange) => handleAuthorised(state, exchange),
};

function buildState(options: EmulatorOptions): EmulatorState {
  const now = options.now ?? Date.now;
  const counters = createCounters();
  const events = new EventEmitter();
  const keys = new KeyRegistry(options.keys ?? [generateDemoKey()], TEMPLATE_NAMES);
  const foreign =
    options.foreignRate === undefined
      ? null
      : new ForeignClient(options.foreignRate, now(), () => {
          counters.foreignRequests += 1;
        });
  const state: EmulatorState = {
    now,
    clock: new ServerClock(now, options.clockSkewMs ?? 0, options.resetStyle ?? 'epoch'),
    baseUrl: '',
    limits: {
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      claimTimeoutMs: options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS,
      openJobCap: options.openJobCap ?? DEFAULT_OPEN_JOB_CAP,
    },
    keys,
    rate: new RateLimiter(options.rateLimits ?? [...DEFAULT_RATE_LIMITS], foreign),
    faults: new FaultInjector(options.faults ?? {}, options.seed ?? randomInt(2 ** 31)),
    jobs: new JobStore(options.ttlMs ?? DEFAULT_TTL_MS, now, (job) => {
      // Another client's job expiring is not one of ours lost.
      if (job.foreign) return;
      counters.expiredJobs += 1;
      emitEvent(state, { type: 'expire', key: job.key, jobId: job.id, sha256: job.sha256, filename: job.filename });
    }),
    counters,
    events,
    creditsUsedSkew: options.creditsUsedSkew ?? 0,
    ...(options.onUpload === undefined ? {} : { onUpload: options.onUpload }),
  };
  if (options.foreignJobs !== undefined) openForeignJobs(state.jobs, keys.keys, options.foreignJobs);
  return state;
}

async function handle(state: EmulatorState, env: ExchangeEnvironment, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  let endpoint: EmulatorEndpoint | null = null;
  let routeFailure: ApiFailure | null = null;
  try {
    endpoint = routeRequest(url.pathname, req.method ?? 'GET');
  } catch (error) {
    if (!(error instanceof ApiFailure)) throw error;
    routeFailure = error;
  }
  const exchange = new Exchange(req, res, endpoint, url, env);
  const body = await readBody(req, endpoint === 'documents' ? DOCUMENTS_BODY_CAP : SMALL_BODY_CAP);
  if (body.aborted) return;
  if (routeFailure !== null || endpoint === null) {
    await exchange.sendFailure(routeFailure ?? new ApiFailure(404, 'not_found', 'Not found.'));
    return;
  }
  state.counters.requestsByEndpoint[endpoint] += 1;
  state.jobs.sweep();
  try {
    await HANDLERS[endpoint](state, exchange, body);
  } catch (error) {
    const failure = error instanceof ApiFailure ? error : new ApiFailure(500, 'server_error', 'Internal server error.');
    await exchange.sendFailure(failure);
  }
}

/**
 * Each answer's simulated processing time. Ranges draw from a PRNG of their
 * own (seeded beside the faults'), so adding a latency range never changes
 * which requests a given fault seed breaks.
 */
export function latencyDrawer(latency: Partial<Record<EmulatorEndpoint, Latency>>, seed: number | undefined): (endpoint: EmulatorEndpoint) => number {
  const random = mulberry32((seed ?? randomInt(2 ** 31)) ^ 0x5eed1a7e);
  return (endpoint) => {
    const value = latency[endpoint] ?? 0;
    if (typeof value === 'number') return value;
    return Math.round(value.minMs + random() * (value.maxMs - value.minMs));
  };
}

/** Starts the emulated Document Extraction Service API v3.1 on a local port. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const state = buildState(options);
  let gzipBomb: Promise<Buffer> | null = null;
  const env: ExchangeEnvironment = {
    now: state.now,
    clock: state.clock,
    latencyFor: latencyDrawer(options.latencyMs ?? {}, options.seed),
    ...(options.holdAnswer ? { holdAnswer: options.holdAnswer } : {}),
    ...(options.holdDocument ? { holdDocument: options.holdDocument } : {}),
    slowMs: options.slowMs ?? DEFAULT_SLOW_MS,
    oversizeBytes: options.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES,
    gzipBomb: () => (gzipBomb ??= buildGzipBomb(options.oversizeBytes ?? DEFAULT_OVERSIZE_BYTES)),
    pick: (choices) => state.faults.pick(choices),
    countFault: (endpoint, kind) => {
      const name = `${endpoint}.${kind}`;
      state.counters.faultsInjected[name] = (state.counters.faultsInjected[name] ?? 0) + 1;
    },
    ...(options.onRequest === undefined ? {} : { log: options.onRequest }),
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(state, env, req, res).catch(() => {
      if (!res.headersSent) res.destroy();
    });
  };
  const server = options.tls === undefined ? createServer(listener) : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener);
  // An idle keep-alive connection is closed by its client, never by the emulator. Node's default (5 s, and the
  // Keep-Alive hint that goes with it) lets the server time a connection out just as a client sends on it: after a
  // busy spell both timers are due, the server's runs before it reads the request, and the client's request is
  // reset unread (issue 28: "fetch failed: read ECONNRESET" on an upload under load). close() ends them all.
  server.keepAliveTimeout = 0;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  state.baseUrl = `${options.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: state.baseUrl,
    port,
    keys: state.keys.keys,
    counters: state.counters,
    events: state.events,
    setFaults: (faults) => state.faults.setFaults(faults),
    expireJob: (parentJobId) => state.jobs.forceExpire(parentJobId),
    loseChunkSource: (parentJobId) => state.jobs.markSourceLost(parentJobId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

/**
 * Timeouts, and the shared default dispatcher that enforces most of them.
 *
 * How undici 7 counts time (read in lib/dispatcher/client-h1.js, measured
 * with Node 20.20 fetch + undici 7.30 Agent against a throttled server):
 *
 * - `headersTimeout` is armed when the request starts and is *refreshed* each
 *   time a body chunk meets socket backpressure and again when the body has
 *   been written. While a write waits for `drain`, the timer can fire. fetch
 *   hands a FormData Blob to undici as ONE chunk, so a 10 MB file made of a
 *   single buffer refreshes once and a slow link trips the timer mid-upload
 *   (12 MB at ~0.9 MB/s vs a 3 s timeout: HeadersTimeoutError at 3.5 s).
 *   Built from 64 KiB parts (see multipart.ts), each part refreshes it, and
 *   the same upload succeeds in 13.4 s. The timer then bounds a stalled
 *   upload, and after the last write it bounds server think time plus the
 *   tail still in kernel buffers: ~5-6 MB on loopback (measured), up to the
 *   4 MB tcp_wmem cap plus the peer's window on a real link. At 1 Mbit/s that
 *   tail alone is ~30 s, one reason headersMs is generous.
 * - `bodyTimeout` starts once headers arrive and is the longest gap between
 *   response body chunks; it does not count upload time at all.
 * - A server that reads everything and never answers, or stops reading,
 *   still trips `headersTimeout` (measured), so a dead server times out.
 *
 * On top, each request gets an overall deadline (an AbortSignal) scaled by
 * body size. It is the backstop for an injected fetch without undici timers
 * and for a server that trickles bytes to keep the idle timers alive.
 */
import type { Dispatcher } from 'undici';
// Its own module, not undici's index (undici-parts.d.ts says why).
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import { keptPool } from './kept-pool.js';
import { proxyClient } from './proxy-client.js';
import type { ApiTimeouts, Endpoint } from './types.js';

/** The timeouts {@link ApiClient} uses for each one not given in `ApiClientOptions.timeouts`; each is explained on {@link ApiTimeouts}. Not settings: no flag, environment variable or DocExtract option sets them (only a program's own ApiClient). */
export const DEFAULT_TIMEOUTS: Readonly<Required<ApiTimeouts>> = {
  connectMs: 10_000,
  // Long on purpose: a sync extraction is an AI call, and a timeout on
  // `documents` can mean a retry that is charged twice.
  headersMs: 180_000,
  bodyMs: 30_000,
  uploadMs: 60_000,
  lightMs: 30_000,
};

/** Idle keep-alive sockets live this long; the server's Keep-Alive hint may shorten it. */
const KEEP_ALIVE_MS = 10_000;
const MIB = 1024 * 1024;

export function resolveTimeouts(timeouts: ApiTimeouts | undefined): Required<ApiTimeouts> {
  const resolved = { ...DEFAULT_TIMEOUTS };
  for (const key of Object.keys(resolved) as (keyof ApiTimeouts)[]) {
    const value = timeouts?.[key];
    if (value !== undefined) {
      if (!Number.isFinite(value) || value <= 0) throw new RangeError(`timeouts.${key} must be a positive number, got ${value}`);
      resolved[key] = value;
    }
  }
  return resolved;
}

/** Endpoints whose answer needs no extraction work on the server. */
const LIGHT_ENDPOINTS: ReadonlySet<Endpoint> = new Set(['health', 'models', 'authorised', 'result']);

/** The overall deadline for one request, in milliseconds. */
export function overallDeadlineMs(endpoint: Endpoint, bodyBytes: number, t: Required<ApiTimeouts>): number {
  if (LIGHT_ENDPOINTS.has(endpoint)) return t.lightMs;
  const startedMiB = Math.ceil(bodyBytes / MIB);
  return t.connectMs + t.headersMs + t.bodyMs + startedMiB * t.uploadMs;
}

const sharedDispatchers = new Map<string, Dispatcher>();

/**
 * One EnvHttpProxyAgent per distinct timeout setting, shared by every client
 * in the process so keep-alive sockets are reused. Created lazily: clients
 * given their own fetch or dispatcher never open one. undici unrefs idle
 * sockets, so the shared agent does not keep the process alive.
 */
export function sharedDispatcher(t: Required<ApiTimeouts>): Dispatcher {
  const key = `${t.connectMs}/${t.headersMs}/${t.bodyMs}`;
  let dispatcher = sharedDispatchers.get(key);
  if (!dispatcher) {
    dispatcher = new EnvHttpProxyAgent({
      connect: { timeout: t.connectMs },
      headersTimeout: t.headersMs,
      bodyTimeout: t.bodyMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // Keep-alive must survive a dropped connection (see kept-pool.ts).
      factory: keptPool,
      // The client to a proxy in HTTPS_PROXY or HTTP_PROXY, which must open tunnels (see proxy-client.ts).
      clientFactory: proxyClient,
    });
    sharedDispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/**
 * The per-origin connection pool of the shared dispatcher, kept for the life
 * of the dispatcher instead of being closed by undici's Agent on a miscount.
 *
 * undici 7's Agent (7.30.2, the last line for Node 20; lib/dispatcher/agent.js)
 * counts each origin's connections from its pool's `connect` and `disconnect`
 * events and closes the pool when the count reaches 0. The count lives under
 * the origin, not the pool, so once a pool was closed while a request still
 * waited in it (its only socket dropped: a cut-off over-cap read, a deadline,
 * a reset), that old pool's later disconnect closes the NEW pool, whose own
 * disconnect closes the next one: back-to-back requests each open a fresh
 * connection (a TLS handshake on the real API) for the rest of the run.
 * Measured: after one cancelled read, 6 sequential reads open 7 connections,
 * every round (test/unit/api/response-cap.test.ts). undici#5022, fixed by
 * undici#5034 in 8.2.0, which needs Node 22.
 *
 * The Agent subscribes to those events after the pool is built, so this pool
 * ignores subscriptions to them from then on: the Agent never counts, never
 * closes it, and closes it only with itself. The pool's own listeners (it
 * drops a client whose connection failed) are wired in its constructor and
 * stay. The cost is one idle Pool object per origin ever reached; the shared
 * dispatcher talks to the API's one origin (and a proxy's).
 */
import type { Pool } from 'undici';
// Its own module, not undici's index (undici-parts.d.ts says why).
import PoolClass from 'undici/lib/dispatcher/pool.js';

/** The events undici's Agent counts a pool's connections by. */
const AGENT_COUNTED = new Set<string | symbol>(['connect', 'disconnect', 'connectionError']);

class KeptPool extends PoolClass {
  /** False while Pool's constructor wires its own listeners, which must stay. */
  private readonly built: boolean;

  constructor(origin: string | URL, options: Pool.Options) {
    super(origin, options);
    this.built = true;
  }

  override on(event: string | symbol, listener: (...args: never[]) => void): this {
    if (this.built && AGENT_COUNTED.has(event)) return this;
    return super.on(event as never, listener as never);
  }
}

/** undici's `factory` option (Agent, EnvHttpProxyAgent): one {@link KeptPool} per origin. */
export function keptPool(origin: string | URL, options: object): Pool {
  return new KeptPool(origin, options as Pool.Options);
}

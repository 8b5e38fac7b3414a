/**
 * The client a proxied dispatcher opens its tunnels with.
 *
 * undici's ProxyAgent opens each tunnel by calling `connect()` on its client
 * to the proxy (lib/dispatcher/proxy-agent.js, 7.30.2). That method is not
 * the class's own: undici's index adds it, with request, stream, pipeline and
 * upgrade, to every dispatcher (`Object.assign(Dispatcher.prototype, api)`).
 * Loaded by their own modules (undici-parts.d.ts), the classes lack it, and
 * every request through HTTPS_PROXY or HTTP_PROXY failed before it left the
 * machine with "this[kClient].connect is not a function" (issue 50). The
 * proxy's client gets that one method from its own module, instead of the
 * index and its 0.2 CPU-seconds at every start, and undici's prototype is
 * left as undici made it.
 */
import type { Pool } from 'undici';
// Their own modules, not undici's index (undici-parts.d.ts says why).
import apiConnect from 'undici/lib/api/api-connect.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';

/** undici's `clientFactory` option of a ProxyAgent: a Pool to the proxy that can open a CONNECT tunnel. */
export function proxyClient(origin: string | URL, options: object): Pool {
  const pool = new PoolClass(origin, options as Pool.Options);
  pool.connect = apiConnect;
  return pool;
}

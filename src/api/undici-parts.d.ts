// The two undici classes the client makes, by their own modules: undici's index loads every dispatcher,
// mock, cache and WebSocket module it has (about 0.2 CPU-seconds at each start of the CLI, measured on
// Node 20.20), and the client needs two. Their types stay undici's own (test/unit/api/undici-parts.test.ts
// holds each module to the class undici exports, so an upgrade that moves one fails there).
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}

// The one method of undici's api that a proxied dispatcher needs (src/api/proxy-client.ts says why).
declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  const connect: Dispatcher['connect'];
  export default connect;
}

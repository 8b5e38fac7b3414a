import { ApiFailure } from '../api-failure.js';
import type { EmulatorEndpoint } from '../types.js';

const METHODS: Record<EmulatorEndpoint, 'GET' | 'POST'> = {
  documents: 'POST',
  process: 'POST',
  result: 'GET',
  models: 'GET',
  health: 'GET',
  authorised: 'GET',
};

/**
 * Maps a path and method to an endpoint, or throws the 404/405 to answer.
 * Each endpoint answers at `/v3.1/<name>` and at its legacy `.php` alias.
 * v1 and v2 are retired (404). v3 is "maintenance only" in the spec, with
 * shapes the spec does not give, so the emulator answers 404 there too.
 */
export function routeRequest(pathname: string, method: string): EmulatorEndpoint {
  const retired = /^\/(v1|v2|v3)(\/|$)/.exec(pathname);
  if (retired !== null) {
    throw new ApiFailure(404, 'not_found', `API ${retired[1]} is not served here; use /v3.1/.`);
  }
  const match = /^\/v3\.1\/([a-z]+)(\.php)?$/.exec(pathname);
  const name = match?.[1];
  if (name === undefined || !Object.hasOwn(METHODS, name)) {
    throw new ApiFailure(404, 'not_found', `No route for ${pathname}.`);
  }
  const endpoint = name as EmulatorEndpoint;
  if (method !== METHODS[endpoint]) {
    throw new ApiFailure(405, 'method_not_allowed', `${method} is not allowed on ${pathname}; use ${METHODS[endpoint]}.`, undefined, {
      allow: METHODS[endpoint],
    });
  }
  return endpoint;
}

import { ENDPOINTS } from './fault-injector.js';
import type { EmulatorCounters, EmulatorEndpoint } from './types.js';

export function createCounters(): EmulatorCounters {
  return {
    creditsCharged: 0,
    creditsChargedByKey: {},
    uploadsBySha256: {},
    requestsByEndpoint: Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint, 0])) as Record<EmulatorEndpoint, number>,
    rateLimited: 0,
    expiredJobs: 0,
    finalizedJobs: 0,
    faultsInjected: {},
    foreignRequests: 0,
  };
}

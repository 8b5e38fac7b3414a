import type { Exchange } from '../http/exchange.js';
import { mayUseTemplate } from '../key-registry.js';
import type { EmulatorState } from '../state.js';
import { describeTemplate, TEMPLATES } from '../templates.js';
import { accountOf, admit } from './admission.js';

/** GET /v3.1/models (section 4.4): the templates this key may use; Bearer, X-API-Key or ?api_key. */
export async function handleModels(state: EmulatorState, exchange: Exchange): Promise<void> {
  const admission = await admit(state, exchange, { auth: 'any-key', rateLimited: false, capped: false, naturalFaults: [] });
  if (admission === null) return;
  const account = accountOf(admission);
  const models = TEMPLATES.filter((t) => mayUseTemplate(account, t.name)).map(describeTemplate);
  await exchange.sendJson(200, { success: true, data: { models } });
}

/** GET /v3.1/health (section 4.5): no auth. */
export async function handleHealth(state: EmulatorState, exchange: Exchange): Promise<void> {
  const admission = await admit(state, exchange, { auth: 'none', rateLimited: false, capped: false, naturalFaults: [] });
  if (admission === null) return;
  await exchange.sendJson(200, {
    status: 'ok',
    timestamp: state.clock.unixSeconds(),
    version: 'v3.1',
    environment: 'development',
    database: 'connected',
  });
}

/** GET /v3.1/authorised (section 4.6): is this key usable, and what is left on it. */
export async function handleAuthorised(state: EmulatorState, exchange: Exchange): Promise<void> {
  const admission = await admit(state, exchange, { auth: 'bearer', rateLimited: false, capped: false, naturalFaults: [] });
  if (admission === null) return;
  const account = accountOf(admission);
  await exchange.sendJson(200, {
    success: true,
    data: {
      key: `sk_${'*'.repeat(28)}${account.key.slice(-4)}`,
      active: true,
      credits_remaining: account.creditsRemaining,
      allowed_requests: account.allowedRequests,
      requests_used: account.requestsUsed,
      models_count: TEMPLATES.filter((t) => mayUseTemplate(account, t.name)).length,
    },
  });
}

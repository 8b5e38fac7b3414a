import { ApiFailure } from '../api-failure.js';
import { ANSWER_FAULTS } from '../fault-injector.js';
import type { Exchange } from '../http/exchange.js';
import type { KeyAccount } from '../key-registry.js';
import { rateHeaders, type RateStatus } from '../rate-limiter.js';
import type { EmulatorState } from '../state.js';
import type { FaultKind } from '../types.js';

export interface AdmissionRules {
  /** `bearer`: Authorization header only. `any-key`: also X-API-Key and ?api_key (models). `none`: health. */
  auth: 'bearer' | 'any-key' | 'none';
  /** Counts toward and is held by the rate windows (documents, process, result). */
  rateLimited: boolean;
  /** Counts toward the key's allowed_requests cap (documents, process). */
  capped: boolean;
  /** Faults the handler applies at their natural point; any other failure fault answers right after admission. */
  naturalFaults: readonly FaultKind[];
}

export interface Admission {
  account: KeyAccount | null;
  /** Rate-window status after this request (null when the endpoint is not rate limited). */
  rateStatus: RateStatus | null;
  /** Undoes the rate-window and cap accounting: the request ended up 429 for another reason. */
  refund(): void;
}

/** Injected failures that stand for a fixed error answer. */
const FAULT_ANSWERS: Partial<Record<FaultKind, () => ApiFailure>> = {
  server_busy: () => new ApiFailure(503, 'server_busy', 'Staging capacity exhausted; retry in a few minutes.'),
  server_error: () => new ApiFailure(500, 'server_error', 'Internal server error.'),
  persist_failed: () => new ApiFailure(500, 'persist_failed', 'Extraction succeeded but the result could not be stored; retry.'),
  extraction_failed: () => new ApiFailure(422, 'extraction_failed', 'Extraction failed.'),
  chunk_in_progress: () => new ApiFailure(409, 'chunk_in_progress', 'Another request is processing this chunk.'),
  chunk_source_lost: () => new ApiFailure(410, 'chunk_source_lost', 'The staged source file is gone; upload the document again.'),
};

function bearerKey(exchange: Exchange): string | undefined {
  const header = exchange.req.headers.authorization;
  return header === undefined ? undefined : (/^\s*Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '');
}

function presentedKey(exchange: Exchange, auth: AdmissionRules['auth']): string | undefined {
  const bearer = bearerKey(exchange);
  if (auth === 'any-key') {
    const header = exchange.req.headers['x-api-key'];
    return bearer ?? (Array.isArray(header) ? header[0] : header) ?? exchange.url.searchParams.get('api_key') ?? undefined;
  }
  if (bearer === undefined && (exchange.req.headers['x-api-key'] !== undefined || exchange.url.searchParams.has('api_key'))) {
    throw new ApiFailure(
      401,
      'invalid_api_key',
      'This endpoint accepts the key only as "Authorization: Bearer sk_..." (X-API-Key and api_key work for models only).',
    );
  }
  return bearer;
}

export function rateLimitFailure(
  state: EmulatorState,
  code: 'rate_limit_exceeded' | 'too_many_open_jobs',
  message: string,
  status: RateStatus,
  details?: Record<string, unknown>,
): ApiFailure {
  return new ApiFailure(429, code, message, details, rateHeaders(status, state.clock));
}

/**
 * The checks every endpoint makes before looking at the request itself, in
 * the service's order: auth, then the fault draw (after auth, so bad-auth
 * answers stay deterministic), then the rate windows, then the request cap.
 * Returns null when the exchange was already dealt with (a reset or an HTML
 * 502); throws an ApiFailure for an error answer.
 */
export async function admit(state: EmulatorState, exchange: Exchange, rules: AdmissionRules): Promise<Admission | null> {
  const account = rules.auth === 'none' ? null : state.keys.authenticate(presentedKey(exchange, rules.auth));
  const endpoint = exchange.endpoint;
  if (endpoint === null) throw new Error('admit() needs a routed endpoint');
  exchange.setFaults(state.faults.draw(endpoint));
  const fault = exchange.primaryFault;

  // Faults before the app: the request never reaches the rate windows.
  if (fault === 'reset_before') {
    exchange.countFault(fault);
    exchange.reset();
    return null;
  }
  if (fault === 'html_502') {
    exchange.countFault(fault);
    await exchange.sendHtml(502, '<html><body><h1>502 Bad Gateway</h1></body></html>');
    return null;
  }
  if (fault === 'rate_limit') {
    exchange.countFault(fault);
    state.counters.rateLimited += 1;
    throw rateLimitFailure(state, 'rate_limit_exceeded', 'Rate limit exceeded.', state.rate.injectedStatus(account?.key ?? null, state.now()));
  }

  let rateStatus: RateStatus | null = null;
  let admittedAt: number | null = null;
  if (rules.rateLimited && account !== null) {
    const decision = state.rate.tryAdmit(account.key, exchange.receivedAt);
    if (!decision.admitted) {
      state.counters.rateLimited += 1;
      throw rateLimitFailure(state, 'rate_limit_exceeded', 'Rate limit exceeded.', decision.status);
    }
    rateStatus = decision.status;
    admittedAt = decision.admittedAt;
  }

  if (fault !== null && !ANSWER_FAULTS.includes(fault) && !rules.naturalFaults.includes(fault)) {
    const answer = FAULT_ANSWERS[fault];
    if (answer !== undefined) {
      exchange.countFault(fault);
      throw answer();
    }
  }

  let countedRequest = false;
  if (rules.capped && account !== null) {
    if (account.allowedRequests !== null && account.requestsUsed >= account.allowedRequests) {
      throw new ApiFailure(402, 'usage_limit_exceeded', 'This key has used all of its allowed requests.', { allowed_requests: account.allowedRequests });
    }
    account.requestsUsed += 1;
    countedRequest = true;
  }

  return {
    account,
    rateStatus,
    refund: () => {
      if (account !== null && admittedAt !== null) state.rate.refund(account.key, admittedAt);
      if (account !== null && countedRequest) account.requestsUsed -= 1;
    },
  };
}

/** The admitted account, for endpoints that authenticate. */
export function accountOf(admission: Admission): KeyAccount {
  if (admission.account === null) throw new Error('endpoint admitted without a key');
  return admission.account;
}

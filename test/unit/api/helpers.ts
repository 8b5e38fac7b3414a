import nock from 'nock';
import { afterEach, beforeAll, expect } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../../src/api/index.js';

export const BASE = 'http://api.test:8787';
/** A realistic key: `sk_` + 32 hex. */
export const KEY = 'sk_0123456789abcdef0123456789ab3f9a';
export const UA = 'docextract/0.1.0-test';

export function makeClient(overrides: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({ baseUrl: `${BASE}/`, apiKey: KEY, userAgent: UA, ...overrides });
}

/** Every test file that mocks: no real network, and an unused mock fails the test. */
export function useNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending, 'every mocked call was made').toEqual([]);
  });
}

export const RATE_HEADERS = { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1767225600' };

/** Error envelope of spec §2.8. */
export function envelope(code: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { success: false, error: { code, message: `message for ${code}`, ...(details ? { details } : {}) } };
}

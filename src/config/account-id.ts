import { createHash } from 'node:crypto';

/** Jobs, send logs and results indexes are scoped to the key and the service: this names that scope (a hash, never the key). */
export function accountId(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 16);
}

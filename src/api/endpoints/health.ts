import { expectOne } from '../interpret.js';
import type { Health } from '../answers.js';
import { healthSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';

/** GET health. Sends no credentials, even when the client has a key (spec §5). */
export async function getHealth(http: HttpTransport, signal?: AbortSignal): Promise<Health> {
  const answer = await http.send({ endpoint: 'health', method: 'GET', auth: false, signal });
  return expectOne('health', answer, http.redact, healthSchema);
}

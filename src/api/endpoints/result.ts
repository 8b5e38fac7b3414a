import { expectOne } from '../interpret.js';
import type { CollectedResult } from '../answers.js';
import { collectedResultSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';

/** Query for `result`; `finalize` appears only when true, so a plain collect stays a pure read. */
export function resultQuery(parentJobId: string, finalize?: boolean): Record<string, string> {
  return finalize ? { job_id: parentJobId, finalize: 'true' } : { job_id: parentJobId };
}

/**
 * GET result?job_id=<parent>[&finalize=true]. Built from the parent id, never
 * from the manifest's `result_url`, which answers 404 (spec §2.3).
 * With finalize the job's data is deleted after the answer: irreversible.
 */
export async function collectResult(http: HttpTransport, parentJobId: string, finalize: boolean | undefined, signal?: AbortSignal): Promise<CollectedResult> {
  const answer = await http.send({ endpoint: 'result', method: 'GET', query: resultQuery(parentJobId, finalize), auth: true, signal });
  return expectOne('result', answer, http.redact, collectedResultSchema);
}

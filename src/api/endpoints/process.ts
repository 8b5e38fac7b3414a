import { expectOne } from '../interpret.js';
import { processForm } from '../multipart.js';
import type { ChunkProcessed } from '../answers.js';
import { chunkProcessedSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';
import type { ExtractOptions } from '../types.js';

/**
 * POST process?job_id=<chunk job id>. The id goes in the query (the spec
 * also allows a form field); the body carries only `options`, and is absent
 * when there are none. Safe to repeat: a done chunk answers
 * `chunk_already_processed` and is not charged again.
 */
export async function processChunk(
  http: HttpTransport,
  chunkJobId: string,
  options: ExtractOptions | undefined,
  signal?: AbortSignal,
): Promise<ChunkProcessed> {
  const body = processForm(options);
  const answer = await http.send({
    endpoint: 'process',
    method: 'POST',
    query: { job_id: chunkJobId },
    ...(body ? { body } : {}),
    auth: true,
    signal,
  });
  return expectOne('process', answer, http.redact, chunkProcessedSchema);
}

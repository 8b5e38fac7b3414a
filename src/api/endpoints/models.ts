import { expectOne } from '../interpret.js';
import type { ModelList } from '../answers.js';
import { modelListSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';

/**
 * GET models. The spec also accepts `X-API-Key` or an `api_key` query here;
 * we send the Bearer header like everywhere else, since query strings leak
 * into logs and proxies.
 */
export async function listModels(http: HttpTransport, signal?: AbortSignal): Promise<ModelList> {
  const answer = await http.send({ endpoint: 'models', method: 'GET', auth: true, signal });
  return expectOne('models', answer, http.redact, modelListSchema);
}

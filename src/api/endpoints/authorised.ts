import { expectOne } from '../interpret.js';
import type { Authorised } from '../answers.js';
import { authorisedSchema } from '../schemas.js';
import type { HttpTransport } from '../transport.js';

/** GET authorised: is the key active? Costs no credits. */
export async function checkAuthorised(http: HttpTransport, signal?: AbortSignal): Promise<Authorised> {
  const answer = await http.send({ endpoint: 'authorised', method: 'GET', auth: true, signal });
  return expectOne('authorised', answer, http.redact, authorisedSchema);
}

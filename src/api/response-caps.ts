/**
 * How many bytes of answer body each endpoint may deliver before the client
 * stops reading. Without a cap, a broken proxy or server (a 1.5 GB body, a
 * 1 MB gzip that inflates to 1 GB) grows the process to gigabytes
 * (measured: 3.4-4.2 GB, then ERR_STRING_TOO_LONG) and sinks the whole
 * batch for one bad answer. The caps sit far above any real answer, so
 * they only ever trip on garbage.
 */
import type { Endpoint } from './types.js';

const MIB = 1024 * 1024;

/** Bytes of (inflated) answer body accepted per endpoint. */
export type ResponseCaps = Record<Endpoint, number>;

/**
 * The caps used for each endpoint not given in `ApiClientOptions.responseCaps`:
 * 1 MiB for health, authorised and process, 8 MiB for models, 64 MiB for
 * documents and result (150 pages of dense extraction, with 4x headroom).
 */
export const DEFAULT_RESPONSE_CAPS: Readonly<ResponseCaps> = {
  // A status object, a key check: a few hundred bytes each.
  health: MIB,
  authorised: MIB,
  // A list of prompt templates; even thousands of them fit in well under 1 MiB.
  models: 8 * MIB,
  // A chunk's answer carries no content (`data` is always null, spec §2.4).
  process: MIB,
  // The two answers that carry extracted content: a synchronous result
  // (up to 3 pages) and a stitched result of up to 150 pages. A dense page
  // (a table-heavy invoice or statement) extracts to tens of KB of JSON;
  // at 100 KiB a page, 150 pages are ~15 MiB, so 64 MiB is 4x headroom
  // over a pessimistic real answer while still bounding what one bad
  // answer can cost (only one at a time grows past 8 MiB: large-body-gate.ts).
  documents: 64 * MIB,
  result: 64 * MIB,
};

/** The defaults, overridden only by defined, positive, finite values. */
export function resolveResponseCaps(caps: Partial<ResponseCaps> | undefined): ResponseCaps {
  const resolved: ResponseCaps = { ...DEFAULT_RESPONSE_CAPS };
  for (const endpoint of Object.keys(resolved) as Endpoint[]) {
    const value = caps?.[endpoint];
    if (value !== undefined) {
      if (!Number.isFinite(value) || value <= 0) throw new RangeError(`responseCaps.${endpoint} must be a positive number, got ${value}`);
      resolved[endpoint] = value;
    }
  }
  return resolved;
}
